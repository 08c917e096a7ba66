// The negative matrix (issue 4, "Proof"), the exchange and the cross-device transport: distinct dishonest, stale or unacceptable wallet answers,
// each sent to a fresh session over the real hosted transport or cross-device (direct_post.jwt). Each must be refused with its stable error
// code and complete nothing: no step_result, no audit record, no step_evidence, no step.completed outbox row, no
// result in the business's read, and the session still in its documented state (test/support/negative-matrix.ts).
import { generateKeyPairSync } from 'node:crypto';
import { exportJWK, type JWK } from 'jose';
import { describe, expect } from 'vitest';
import { WalletRequestEntity } from '../../server/src/modules/verification/wallet-request.entity';
import type { Json } from '../support/harness';
import {
  type Case,
  type Ctx,
  encryptResponse,
  matrixTests,
  negativeMatrix,
  postResponse,
  presentationOf,
  type Result,
  withPresentation,
} from '../support/negative-matrix';

describe('negative matrix (exchange, cross-device): every refusal has a stable code and completes nothing', () => {
  const m = negativeMatrix('negative_matrix_exchange');
  const { hosted, present, hostedRequest, newSession, expectNothingCompleted, crossDevice } = m;

  const cases: Case[] = [
    // --- the exchange ---
    {
      name: 'malformed vp_token (not an object of presentations)',
      code: 'presentation_malformed',
      run: (ctx) => hosted(ctx, async () => ({ vp_token: 42 })),
    },
    {
      name: 'SD-JWT presentation as a bare string instead of an array (OpenID4VP 1.0 §8.1)',
      code: 'presentation_malformed',
      run: (ctx) =>
        hosted(ctx, async (request) => ({ vp_token: { pid: presentationOf(await present(request)) } })),
    },
    {
      name: 'mdoc DeviceResponse as a bare string instead of an array (OpenID4VP 1.0 §8.1)',
      code: 'presentation_malformed',
      run: (ctx) =>
        hosted(ctx, async (request) => {
          const honest = (await m.t.svc.wallet.presentMdoc({
            persona: 'adult',
            request,
            origin: m.t.baseUrl,
          })) as {
            vp_token: Record<string, string[]>;
          };
          const [id, [presentation]] = Object.entries(honest.vp_token)[0] as [string, string[]];
          return { vp_token: { [id]: presentation } };
        }),
    },
    {
      name: 'presentation that is not an SD-JWT',
      code: 'presentation_malformed',
      run: (ctx) => hosted(ctx, async () => withPresentation('eyJhbGciOiJFUzI1NiJ9.e30.c2ln')),
    },
    {
      name: 'wallet error response (access_denied)',
      code: 'presentation_malformed',
      run: (ctx) =>
        hosted(ctx, async () => ({ error: 'access_denied', error_description: 'The user declined.' })),
    },
    {
      name: 'unknown request id',
      code: 'request_not_found',
      burns: false,
      run: async (ctx) => {
        const wr = await hostedRequest(ctx);
        return ctx.signer.submit('wreq_00000000000000000000000000', await present(wr.request));
      },
    },
    {
      name: "response to another session's request",
      code: 'request_not_found',
      burns: false,
      run: async (ctx) => {
        const other = await newSession('identify');
        const wr = await hostedRequest(other);
        const res = await ctx.signer.submit(wr.request_id, await present(wr.request));
        await expectNothingCompleted(other.id, {}); // the other session is untouched too
        const row = await m.t.svc.ds
          .getRepository(WalletRequestEntity)
          .findOneByOrFail({ id: wr.request_id });
        expect(row.state).toBe('open');
        return res;
      },
    },
    {
      name: 'replayed response to its used request (after it completed step 0)',
      code: 'request_not_found',
      workflow: 'two_identify',
      completedBefore: 1,
      burns: false,
      run: async (ctx) => {
        const wr = await hostedRequest(ctx);
        const response = await present(wr.request);
        expect((await ctx.signer.submit(wr.request_id, response)).status).toBe(200);
        return ctx.signer.submit(wr.request_id, response);
      },
    },
    {
      name: 'replayed presentation against the next fresh request',
      code: 'nonce_mismatch',
      workflow: 'two_identify',
      completedBefore: 1,
      run: async (ctx) => {
        const first = await hostedRequest(ctx);
        const response = await present(first.request);
        expect((await ctx.signer.submit(first.request_id, response)).status).toBe(200);
        const next = await hostedRequest(ctx);
        return ctx.signer.submit(next.request_id, response);
      },
    },
    {
      name: 'response after the step window (ManualClock +11 min)',
      code: 'session_expired',
      http: 410,
      after: 'expired',
      burns: false,
      run: async (ctx) => {
        const wr = await hostedRequest(ctx);
        const response = await present(wr.request);
        m.clock.advance(11 * 60_000); // identify's window is 10 min
        return ctx.signer.submit(wr.request_id, response);
      },
    },
    // --- cross-device (direct_post.jwt) ---
    {
      name: 'cross-device: key binding to origin instead of client_id',
      code: 'audience_mismatch',
      run: async (ctx) => {
        const cd = await ctx.signer.call('POST', '/wallet-request/cross_device');
        return m.t.svc.signedWallet.answerCrossDevice({
          persona: 'adult',
          uri: cd.body.uri,
          overrides: { aud: `origin:${m.t.baseUrl}` },
        }) as Promise<Result>;
      },
    },
    {
      name: 'cross-device: plain vp_token where a JWE is required',
      code: 'response_not_encrypted',
      run: async (ctx) => {
        const payload = await crossDevice(ctx);
        const presented = await present(payload);
        return postResponse(payload.response_uri as string, {
          vp_token: JSON.stringify(presented.vp_token),
          state: String(payload.state),
        }) as Promise<Result>;
      },
    },
    {
      name: 'cross-device: response encrypted to another key',
      code: 'response_decryption_failed',
      run: async (ctx) => {
        const payload = await crossDevice(ctx);
        const presented = await present(payload);
        const ours = (payload.client_metadata as Json).jwks.keys[0] as JWK;
        const other = await exportJWK(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey);
        const jwe = await encryptResponse({ ...presented, state: payload.state }, payload, {
          jwk: { ...other, kid: ours.kid, alg: 'ECDH-ES' },
        });
        return postResponse(payload.response_uri as string, { response: jwe }) as Promise<Result>;
      },
    },
    {
      name: 'cross-device: wallet error response posted to response_uri',
      code: 'presentation_malformed',
      run: async (ctx) => {
        const payload = await crossDevice(ctx);
        return postResponse(payload.response_uri as string, {
          error: 'access_denied',
          state: String(payload.state),
        }) as Promise<Result>;
      },
    },
    {
      name: 'cross-device: unknown request id at response_uri',
      code: 'request_not_found',
      burns: false,
      run: async (ctx) => {
        const payload = await crossDevice(ctx);
        const jwe = await encryptResponse({ ...(await present(payload)), state: payload.state }, payload);
        const unknown = (payload.response_uri as string).replace(
          /wreq_[0-9a-z]{26}$/,
          `wreq_${'0'.repeat(26)}`,
        );
        return postResponse(unknown, { response: jwe }) as Promise<Result>;
      },
    },
  ];

  matrixTests(
    m,
    cases,
    [
      {
        name: 'cross-device, encrypted to the request key',
        run: async (ctx: Ctx) => {
          const payload = await crossDevice(ctx);
          const jwe = await encryptResponse({ ...(await present(payload)), state: payload.state }, payload);
          return postResponse(payload.response_uri as string, { response: jwe }) as Promise<Result>;
        },
      },
    ],
    15,
  );
});
