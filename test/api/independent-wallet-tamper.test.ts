// The tamper matrix against the independent test wallet (test/support/independent-wallet): answers produced by a
// wallet that shares no library with the verifier, then made to lie in exactly one way, across both formats and
// every transport (unsigned and signed DC API, cross-device direct_post.jwt, ISO 18013-7 Annex C). Each must be
// refused with its stable code, burn its wallet request, and store nothing: no step_result, audit record,
// evidence or step.completed outbox row, and the business reads the session still in progress. The rows follow
// test/api/negative-matrix.test.ts (whose SD-JWT rows use the reference wallet); a control row per transport and
// format proves the same helpers without a lie complete the step.
import { generateKeyPairSync } from 'node:crypto';
import type { JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { MDOC_AV } from '../../server/src/modules/verification/mdoc/mdoc-query';
import { freshP256 } from '../support/independent-wallet/annex-c-wallet';
import type { WalletFormat, WalletLies } from '../support/independent-wallet/wallet';
import {
  type Ctx,
  IndependentWalletFixture,
  type Result,
  type Transport,
  type Workflow,
} from '../support/independent-wallet-fixture';

const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
const { d: _d, ...otherPublic } = otherKey;

interface Case {
  name: string;
  code: string;
  transport: Transport;
  format: WalletFormat;
  workflow?: Workflow;
  lies?: WalletLies;
  completedBefore?: number;
  /** A lie that is not a WalletLies deviation (replays). */
  run?: (ctx: Ctx) => Promise<Result>;
}

describe('tamper matrix with the independent wallet: refused with its code, nothing stored', () => {
  const clock = new ManualClock();
  const f = new IndependentWalletFixture(clock);
  beforeAll(() => f.start('independent_tamper'));
  afterAll(() => f.stop());

  const sd = 'dc+sd-jwt' as const;
  const md = 'mso_mdoc' as const;
  const cases: Case[] = [
    // SD-JWT VC
    {
      name: 'tampered disclosure value',
      code: 'disclosure_invalid',
      transport: 'dc_api',
      format: sd,
      lies: { sdJwt: { tamperClaim: 'family_name' } },
    },
    {
      name: 'requested claim withheld',
      code: 'claims_missing',
      transport: 'dc_api_signed',
      format: sd,
      lies: { sdJwt: { omitClaims: ['given_name'] } },
    },
    {
      name: 'no key-binding JWT',
      code: 'key_binding_missing',
      transport: 'dc_api',
      format: sd,
      lies: { sdJwt: { noKeyBinding: true } },
    },
    {
      name: 'key-binding JWT typ JWT',
      code: 'key_binding_invalid',
      transport: 'dc_api_signed',
      format: sd,
      lies: { sdJwt: { kbTyp: 'JWT' } },
    },
    {
      name: 'key-binding JWT by another key',
      code: 'key_binding_invalid',
      transport: 'cross_device',
      format: sd,
      lies: { sdJwt: { kbKey: otherKey } },
    },
    {
      name: 'nonce of another request',
      code: 'nonce_mismatch',
      transport: 'dc_api',
      format: sd,
      lies: { sdJwt: { nonce: 'N'.repeat(43) } },
    },
    {
      name: 'aud of another origin',
      code: 'audience_mismatch',
      transport: 'dc_api_signed',
      format: sd,
      lies: { sdJwt: { aud: 'origin:https://attacker.example' } },
    },
    {
      name: 'cross-device aud = origin instead of client_id',
      code: 'audience_mismatch',
      transport: 'cross_device',
      format: sd,
      // the DC API audience (this page's origin) where the cross-device audience is the client_id
      run: (ctx) => f.exchange(ctx, 'cross_device', sd, { sdJwt: { aud: `origin:${f.origin}` } }),
    },
    {
      name: 'stale iat (6 min old)',
      code: 'key_binding_stale',
      transport: 'dc_api',
      format: sd,
      lies: { sdJwt: { iatOffset: -360 } },
    },
    {
      name: 'future iat (1 min ahead)',
      code: 'key_binding_stale',
      transport: 'cross_device',
      format: sd,
      lies: { sdJwt: { iatOffset: 60 } },
    },
    {
      name: 'disclosures reordered after binding',
      code: 'sd_hash_mismatch',
      transport: 'dc_api_signed',
      format: sd,
      lies: { sdJwt: { reorderAfterBinding: true } },
    },
    {
      name: 'sign without transaction_data_hashes',
      code: 'transaction_data_missing',
      transport: 'dc_api_signed',
      format: sd,
      workflow: 'sign',
      lies: { sdJwt: { omitTransactionDataHashes: true } },
    },
    {
      name: 'sign bound to other transaction data',
      code: 'transaction_data_mismatch',
      transport: 'cross_device',
      format: sd,
      workflow: 'sign',
      lies: { sdJwt: { transactionDataAs: ['eyJ0eXBlIjoib3RoZXIifQ'] } },
    },
    {
      name: 'attestation bound to other terms',
      code: 'transaction_data_mismatch',
      transport: 'dc_api',
      format: sd,
      workflow: 'attestation',
      lies: { sdJwt: { transactionDataAs: ['eyJ0ZXJtcyI6Im90aGVyIn0'] } },
    },
    {
      name: 'presentation as a bare string (§8.1)',
      code: 'presentation_malformed',
      transport: 'dc_api',
      format: sd,
      lies: { bareString: true },
    },
    {
      name: 'plain response where a JWE is required',
      code: 'response_not_encrypted',
      transport: 'dc_api_signed',
      format: sd,
      lies: { plain: true },
    },
    {
      name: 'response encrypted to another key',
      code: 'response_decryption_failed',
      transport: 'cross_device',
      format: sd,
      lies: { encryptTo: otherPublic as JWK },
    },
    // ISO mdoc over OpenID4VP
    {
      name: 'tampered element value',
      code: 'disclosure_invalid',
      transport: 'dc_api',
      format: md,
      lies: { mdoc: { tamperElement: 'family_name' } },
    },
    {
      name: 'requested element withheld',
      code: 'claims_missing',
      transport: 'dc_api_signed',
      format: md,
      lies: { mdoc: { omitElements: ['given_name'] } },
    },
    {
      name: 'device signature by another key',
      code: 'key_binding_invalid',
      transport: 'cross_device',
      format: md,
      lies: { mdoc: { deviceKey: freshP256().privateJwk } },
    },
    {
      name: 'handover bound to another origin',
      code: 'key_binding_invalid',
      transport: 'dc_api_signed',
      format: md,
      lies: { mdoc: { origin: 'https://attacker.example' } },
    },
    {
      name: 'handover bound to another client_id',
      code: 'key_binding_invalid',
      transport: 'cross_device',
      format: md,
      lies: { mdoc: { handoverClientId: 'x509_hash:someone-else' } },
    },
    {
      name: 'tampered digest inside the MSO',
      code: 'credential_signature_invalid',
      transport: 'cross_device',
      format: md,
      lies: { mdoc: { tamperMsoDigest: true } },
    },
    {
      name: 'a docType that was not requested',
      code: 'credential_type_invalid',
      transport: 'dc_api',
      format: md,
      lies: { mdoc: { doctype: MDOC_AV.doctype } },
    },
    {
      name: 'sign without device-signed transaction data',
      code: 'transaction_data_missing',
      transport: 'dc_api_signed',
      format: md,
      workflow: 'sign',
      lies: { mdoc: { omitTransactionData: true } },
    },
    {
      name: 'attestation bound to other terms',
      code: 'transaction_data_mismatch',
      transport: 'cross_device',
      format: md,
      workflow: 'attestation',
      lies: { mdoc: { transactionDataAs: 'eyJ0ZXJtcyI6Im90aGVyIn0' } },
    },
    {
      name: 'DeviceResponse as a bare string (§8.1)',
      code: 'presentation_malformed',
      transport: 'dc_api',
      format: md,
      lies: { bareString: true },
    },
    // ISO 18013-7 Annex C
    {
      name: 'transcript bound to another origin',
      code: 'response_decryption_failed',
      transport: 'org_iso_mdoc',
      format: md,
      lies: { mdoc: { origin: 'https://attacker.example' } },
    },
    {
      name: 'tampered HPKE ciphertext',
      code: 'response_decryption_failed',
      transport: 'org_iso_mdoc',
      format: md,
      lies: { mdoc: { tamperCipherText: true } },
    },
    {
      name: 'tampered device signature',
      code: 'key_binding_invalid',
      transport: 'org_iso_mdoc',
      format: md,
      lies: { mdoc: { tamperDeviceSignature: true } },
    },
    {
      name: 'requested element withheld',
      code: 'claims_missing',
      transport: 'org_iso_mdoc',
      format: md,
      lies: { mdoc: { omitElements: ['family_name'] } },
    },
    // replay: an honest answer to step 0 sent again for step 1's fresh request
    ...(['dc_api', 'dc_api_signed', 'org_iso_mdoc'] as const).map(
      (transport): Case => ({
        name: 'answer to the previous step replayed against the next request',
        code: transport === 'dc_api' ? 'nonce_mismatch' : 'response_decryption_failed',
        transport,
        format: transport === 'dc_api' ? sd : md,
        workflow: 'two_identify',
        completedBefore: 1,
        run: async (ctx) => {
          const format = transport === 'dc_api' ? sd : md;
          const first = await f.request(ctx, transport);
          const answer = await answerData(transport, format, first.body);
          expect((await ctx.signer.submit(first.requestId, answer)).status).toBe(200);
          const next = await f.request(ctx, transport);
          return ctx.signer.submit(next.requestId, answer);
        },
      }),
    ),
  ];

  /** The answer `data` a page would submit (not cross-device). */
  async function answerData(transport: Transport, format: WalletFormat, body: Record<string, never>) {
    if (transport === 'dc_api') return f.wallet.dcApiUnsigned(body.request, f.origin, format);
    if (transport === 'dc_api_signed') return f.wallet.dcApiSigned(body.request, f.rootPem, f.origin, format);
    return f.wallet.annexC(body.request, f.origin);
  }

  it('has at least 20 distinct cases over both formats and all four transports', () => {
    const keys = cases.map((c) => `${c.transport} ${c.format} ${c.name}`);
    expect(new Set(keys).size).toBe(cases.length);
    expect(cases.length).toBeGreaterThanOrEqual(20);
    expect(new Set(cases.map((c) => c.transport)).size).toBe(4);
    expect(new Set(cases.map((c) => c.format)).size).toBe(2);
  });

  it.each(cases)('$transport $format: $name -> $code', async (c) => {
    const ctx = await f.newSession(c.workflow ?? 'identify');
    const res = c.run ? await c.run(ctx) : await f.exchange(ctx, c.transport, c.format, c.lies);
    expect({ status: res.status, code: res.body?.code }).toEqual({ status: 422, code: c.code });
    await f.expectNothingStored(ctx.id, c.completedBefore ?? 0);
    expect(await f.refusedRequests(ctx.id)).toBe(1);
  });

  it.each(
    (['dc_api', 'dc_api_signed', 'cross_device'] as const).flatMap((transport) =>
      ([sd, md] as const).map((format) => ({ transport, format })),
    ),
  )('control: $transport $format without a lie completes sign', async ({ transport, format }) => {
    const ctx = await f.newSession('sign');
    expect((await f.exchange(ctx, transport, format)).status).toBe(200);
  });
});
