import { beforeAll, describe, expect, it } from 'vitest';
import { SandboxMdocIssuer } from '../../server/src/modules/sandbox/mdoc/mdoc-issuer';
import { MDOC_AV, MDOC_PID } from '../../server/src/modules/verification/mdoc/mdoc-query';
import { WalletRequestEntity } from '../../server/src/modules/verification/wallet-request.entity';
import { annexCSuite, type Workflow } from '../support/annex-c-suite';
import { type Json, type TestService } from '../support/harness';
import { type AnnexCOverrides, AnnexCWallet, freshP256 } from '../support/independent-wallet/annex-c-wallet';
import { SignerClient } from '../support/signer';

describe('ISO 18013-7 Annex C (org-iso-mdoc): tampered answers', () => {
  const s = annexCSuite('annex_c_refusals');
  const { clock, newSession, annexCRequest, expectNothingStored } = s;
  let t: TestService;
  let origin: string;
  let wallet: AnnexCWallet;
  let issuer: SandboxMdocIssuer;
  let devicePrivateJwk: JsonWebKey;
  beforeAll(() => {
    ({ t, origin, wallet, issuer, devicePrivateJwk } = s.state);
  });

  const answering =
    (overrides: AnnexCOverrides | (() => Promise<AnnexCOverrides>), w?: () => AnnexCWallet) =>
    async (ctx: { signer: SignerClient }) => {
      const { requestId, request } = await annexCRequest(ctx.signer);
      const o = typeof overrides === 'function' ? await overrides() : overrides;
      return ctx.signer.submit(requestId, await (w ? w() : wallet).answer(request, origin, o));
    };
  const withDocument = (issuerSigned: string) => new AnnexCWallet([{ issuerSigned, devicePrivateJwk }]);

  interface Case {
    name: string;
    code: string;
    workflow?: Workflow;
    completedBefore?: number;
    /** Whether the refusal burns its request (a verification refusal); unknown or used ids do not. */
    burns?: boolean;
    run(ctx: { id: string; signer: SignerClient }): Promise<{ status: number; body: Json }>;
  }
  const cases: Case[] = [
    {
      name: 'transcript bound to another origin',
      code: 'response_decryption_failed',
      run: answering({ origin: 'https://attacker.example' }),
    },
    {
      name: 'encrypted to another recipient key',
      code: 'response_decryption_failed',
      run: answering({ recipientPublicKey: freshP256().publicRaw }),
    },
    {
      name: 'tampered HPKE ciphertext',
      code: 'response_decryption_failed',
      run: answering({ tamperCipherText: true }),
    },
    {
      name: 'tampered encapsulated key (enc)',
      code: 'response_decryption_failed',
      run: answering({ tamperEnc: true }),
    },
    {
      name: 'transcript over another EncryptionInfo (another request of the same session)',
      code: 'response_decryption_failed',
      run: async (ctx) => {
        const other = await annexCRequest(ctx.signer);
        return answering({ encryptionInfo: other.request.encryptionInfo })(ctx);
      },
    },
    {
      name: 'answer sent to another session',
      code: 'request_not_found',
      burns: false,
      run: async (ctx) => {
        const other = await newSession('identify');
        const { requestId, request } = await annexCRequest(other.signer);
        const res = await ctx.signer.submit(requestId, await wallet.answer(request, origin));
        await expectNothingStored(other.id);
        return res;
      },
    },
    {
      name: 'answer of another session replayed to this session’s request',
      code: 'response_decryption_failed',
      run: async (ctx) => {
        const other = await newSession('identify');
        const theirs = await annexCRequest(other.signer);
        const answer = await wallet.answer(theirs.request, origin);
        const ours = await annexCRequest(ctx.signer);
        return ctx.signer.submit(ours.requestId, answer);
      },
    },
    {
      name: 'replayed answer to its used request',
      code: 'request_not_found',
      burns: false,
      workflow: 'two_identify',
      completedBefore: 1,
      run: async (ctx) => {
        const { requestId, request } = await annexCRequest(ctx.signer);
        const answer = await wallet.answer(request, origin);
        expect((await ctx.signer.submit(requestId, answer)).status).toBe(200);
        return ctx.signer.submit(requestId, answer);
      },
    },
    {
      name: 'replayed answer against the next fresh request',
      code: 'response_decryption_failed',
      workflow: 'two_identify',
      completedBefore: 1,
      run: async (ctx) => {
        const first = await annexCRequest(ctx.signer);
        const answer = await wallet.answer(first.request, origin);
        expect((await ctx.signer.submit(first.requestId, answer)).status).toBe(200);
        const next = await annexCRequest(ctx.signer);
        return ctx.signer.submit(next.requestId, answer);
      },
    },
    {
      name: 'a document of a docType that was not requested',
      code: 'credential_type_invalid',
      run: answering({ doctype: MDOC_AV.doctype }),
    },
    {
      name: 'a requested element withheld',
      code: 'claims_missing',
      run: answering({ omitElements: ['given_name'] }),
    },
    {
      name: 'tampered element value (digest mismatch)',
      code: 'disclosure_invalid',
      run: answering({ tamperElement: 'family_name' }),
    },
    {
      name: 'tampered digest inside the MSO',
      code: 'credential_signature_invalid',
      run: answering({ tamperMsoDigest: true }),
    },
    {
      name: 'tampered device signature',
      code: 'key_binding_invalid',
      run: answering({ tamperDeviceSignature: true }),
    },
    {
      name: 'device signature by another key than the MSO device key',
      code: 'key_binding_invalid',
      run: answering({ deviceKey: freshP256().privateJwk }),
    },
    {
      name: 'expired MSO',
      code: 'credential_expired',
      run: answering({}, () => expiredWallet),
    },
    {
      name: 'document signed under an untrusted IACA',
      code: 'issuer_untrusted',
      run: answering({}, () => untrustedWallet),
    },
    {
      name: 'plain (unencrypted) answer',
      code: 'response_not_encrypted',
      run: async (ctx) => {
        const { requestId } = await annexCRequest(ctx.signer);
        return ctx.signer.submit(requestId, { vp_token: { pid_mdoc: ['x'] } });
      },
    },
    {
      name: 'not an EncryptedResponse',
      code: 'presentation_malformed',
      run: async (ctx) => {
        const { requestId } = await annexCRequest(ctx.signer);
        return ctx.signer.submit(requestId, { response: 'gmVkY2FwaaA' }); // ["dcapi", {}]
      },
    },
    {
      // 4n+1 characters are no encoding of whole bytes: refused as not an EncryptedResponse, never read as
      // the answer it was made from
      name: 'a real answer with one base64url character too many (length 4n+1)',
      code: 'presentation_malformed',
      run: async (ctx) => {
        const { requestId, request } = await annexCRequest(ctx.signer);
        const { response } = (await wallet.answer(request, origin)) as { response: string };
        const whole = response.slice(0, response.length - (response.length % 4));
        const tail = response.slice(whole.length);
        const padded = tail.length === 0 ? `${whole}A` : `${response}${'A'.repeat(5 - tail.length)}`;
        expect(padded.length % 4).toBe(1);
        return ctx.signer.submit(requestId, { response: padded });
      },
    },
  ];
  let expiredWallet: AnnexCWallet;
  let untrustedWallet: AnnexCWallet;
  beforeAll(async () => {
    const now = clock.now();
    expiredWallet = withDocument(
      await issuer.issueFor('adult', MDOC_PID.doctype, {
        validity: {
          signed: new Date(now.getTime() - 40 * 86_400_000),
          validFrom: new Date(now.getTime() - 40 * 86_400_000),
          validUntil: new Date(now.getTime() - 86_400_000),
        },
      }),
    );
    untrustedWallet = withDocument(await issuer.issueFor('adult', MDOC_PID.doctype, { signer: 'untrusted' }));
  });

  it('has at least 12 distinct tampering cases', () => {
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
    expect(cases.length).toBeGreaterThanOrEqual(12);
  });

  it.each(cases)('refuses $name with $code and stores nothing', async (c) => {
    const ctx = await newSession(c.workflow ?? 'identify');
    const res = await c.run(ctx);
    expect({ status: res.status, code: res.body?.code }).toEqual({ status: 422, code: c.code });
    await expectNothingStored(ctx.id, c.completedBefore ?? 0);
    const refused = await t.svc.ds
      .getRepository(WalletRequestEntity)
      .countBy({ sessionId: ctx.id, state: 'refused' });
    expect(refused).toBe((c.burns ?? true) ? 1 : 0);
  });

  it('control: the same helpers without a deviation complete the step', async () => {
    const ctx = await newSession('identify');
    expect((await answering({})(ctx)).status).toBe(200);
    const ctx2 = await newSession('identify');
    const fresh = withDocument(await issuer.issueFor('adult', MDOC_PID.doctype));
    expect((await answering({}, () => fresh)(ctx2)).status).toBe(200);
  });
});
