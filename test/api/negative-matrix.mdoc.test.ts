// The negative matrix (issue 4, "Proof"), ISO mdoc and ISO 18013-7 Annex C: distinct dishonest, stale or unacceptable wallet answers,
// each sent to a fresh session over the real hosted transport (the Annex C rows answered by the independent
// wallet of test/support/independent-wallet). Each must be refused with its stable error
// code and complete nothing: no step_result, no audit record, no step_evidence, no step.completed outbox row, no
// result in the business's read, and the session still in its documented state (test/support/negative-matrix.ts).
import { describe } from 'vitest';
import {
  dcqlQueryWithAlternatives,
  MDOC_PID,
  MDOC_VP_FORMAT,
  mdocIdentifyQuery,
} from '../../server/src/modules/verification/mdoc/mdoc-query';
import { WalletRequestEntity } from '../../server/src/modules/verification/wallet-request.entity';
import { freshP256 } from '../support/independent-wallet/annex-c-wallet';
import { type Case, type Ctx, matrixTests, negativeMatrix } from '../support/negative-matrix';

describe('negative matrix (mdoc, Annex C): every refusal has a stable code and completes nothing', () => {
  const m = negativeMatrix('negative_matrix_mdoc');
  const { hostedRequest, annexC } = m;

  const cases: Case[] = [
    // --- ISO mdoc ---
    {
      name: 'mdoc: tampered element value (digest mismatch)',
      code: 'disclosure_invalid',
      run: async (ctx) => {
        const wr = await hostedRequest(ctx);
        let request = wr.request;
        const credentials = (request.dcql_query as { credentials: { format: string }[] }).credentials;
        if (!credentials.some((c) => c.format === 'mso_mdoc')) {
          // Workflows do not offer mdoc yet: the stored request gets the query mdocIdentifyQuery makes (same
          // nonce), exactly what the request would carry (as test/api/mdoc.test.ts does).
          request = {
            ...request,
            dcql_query: dcqlQueryWithAlternatives([
              mdocIdentifyQuery('pid_mdoc', MDOC_PID.doctype, ['given_name', 'family_name']),
            ]),
            client_metadata: { vp_formats_supported: { ...MDOC_VP_FORMAT } },
          };
          await m.t.svc.ds
            .getRepository(WalletRequestEntity)
            .update({ id: wr.request_id }, { request: JSON.stringify(request) });
        }
        const response = await m.t.svc.wallet.presentMdoc({
          persona: 'adult',
          request,
          origin: m.t.baseUrl,
          overrides: { tamperElement: 'given_name' },
        });
        return ctx.signer.submit(wr.request_id, response);
      },
    },
    // --- ISO 18013-7 Annex C (org-iso-mdoc), independent wallet ---
    {
      name: 'annex C: transcript bound to another origin',
      code: 'response_decryption_failed',
      run: annexC({ origin: 'https://attacker.example' }),
    },
    {
      name: 'annex C: encrypted to another recipient key',
      code: 'response_decryption_failed',
      run: annexC({ recipientPublicKey: freshP256().publicRaw }),
    },
    {
      name: 'annex C: tampered HPKE ciphertext',
      code: 'response_decryption_failed',
      run: annexC({ tamperCipherText: true }),
    },
    {
      name: 'annex C: tampered encapsulated key (enc)',
      code: 'response_decryption_failed',
      run: annexC({ tamperEnc: true }),
    },
    {
      name: "annex C: transcript over another request's EncryptionInfo",
      code: 'response_decryption_failed',
      run: annexC({}, async (ctx) => {
        const other = await ctx.signer.call('POST', '/wallet-request/org_iso_mdoc');
        return other.body.request.encryptionInfo as string;
      }),
    },
    {
      name: 'annex C: a document of a docType that was not requested',
      code: 'credential_type_invalid',
      run: annexC({ doctype: 'eu.europa.ec.av.1' }),
    },
    {
      name: 'annex C: a requested element withheld',
      code: 'claims_missing',
      run: annexC({ omitElements: ['given_name'] }),
    },
    {
      name: 'annex C: tampered element value',
      code: 'disclosure_invalid',
      run: annexC({ tamperElement: 'family_name' }),
    },
    {
      name: 'annex C: tampered digest inside the MSO',
      code: 'credential_signature_invalid',
      run: annexC({ tamperMsoDigest: true }),
    },
    {
      name: 'annex C: tampered device signature',
      code: 'key_binding_invalid',
      run: annexC({ tamperDeviceSignature: true }),
    },
    {
      name: 'annex C: device signature by another key',
      code: 'key_binding_invalid',
      run: annexC({ deviceKey: freshP256().privateJwk }),
    },
    {
      name: 'annex C: plain answer instead of an EncryptedResponse',
      code: 'response_not_encrypted',
      run: async (ctx) => {
        const wr = await ctx.signer.call('POST', '/wallet-request/org_iso_mdoc');
        return ctx.signer.submit(wr.body.request_id as string, { vp_token: { pid_mdoc: ['x'] } });
      },
    },
  ];

  matrixTests(
    m,
    cases,
    [{ name: 'annex C, independent wallet without a deviation', run: (ctx: Ctx) => annexC({})(ctx) }],
    13,
  );
});
