// The negative matrix (issue 4, "Proof"), the SD-JWT credential, its key binding and transaction data: distinct dishonest, stale or unacceptable wallet answers,
// each sent to a fresh session over the real hosted transport. Each must be refused with its stable error
// code and complete nothing: no step_result, no audit record, no step_evidence, no step.completed outbox row, no
// result in the business's read, and the session still in its documented state (test/support/negative-matrix.ts).
import { describe, expect } from 'vitest';
import {
  b64uSha256,
  type Case,
  decodeB64Json,
  encodeB64Json,
  matrixTests,
  negativeMatrix,
  sha256Hex,
  TERMS,
} from '../support/negative-matrix';

describe('negative matrix (SD-JWT): every refusal has a stable code and completes nothing', () => {
  const m = negativeMatrix('negative_matrix_sdjwt');
  const { overriding, editing, resignKb, nowS, otherKey, withOtherDocumentHash } = m;

  const cases: Case[] = [
    // --- the credential (issuer side) ---
    {
      name: 'tampered disclosure value',
      code: 'disclosure_invalid',
      run: overriding({ tamperDisclosure: true }),
    },
    {
      name: 'tampered issuer JWT payload (exp extended)',
      code: 'credential_signature_invalid',
      run: editing((p) => {
        const [h, body, sig] = (p.split('~')[0] as string).split('.') as [string, string, string];
        const claims = decodeB64Json(body);
        claims.exp = (claims.exp as number) + 10 * 365 * 86_400;
        return [`${h}.${encodeB64Json(claims)}.${sig}`, ...p.split('~').slice(1)].join('~');
      }),
    },
    {
      name: 'wrong issuer JWT typ (vc+sd-jwt)',
      code: 'credential_type_invalid',
      run: async (ctx) =>
        overriding({ credential: await m.t.svc.sandboxIssuer.issueFor('adult', { typ: 'vc+sd-jwt' }) })(ctx),
    },
    { name: 'revoked credential', code: 'credential_revoked', run: overriding({}, 'revoked') },
    { name: 'suspended credential', code: 'credential_suspended', run: overriding({}, 'suspended') },
    { name: 'expired credential', code: 'credential_expired', run: overriding({}, 'expired') },
    { name: 'untrusted issuer', code: 'issuer_untrusted', run: overriding({}, 'unknown_issuer') },
    {
      name: 'claims that do not answer the query (given_name withheld)',
      code: 'claims_missing',
      run: overriding({ omitClaims: ['given_name'] }),
    },
    // --- the key binding ---
    {
      name: 'missing key-binding JWT',
      code: 'key_binding_missing',
      run: overriding({ omitKeyBinding: true }),
    },
    {
      name: 'key-binding JWT typ JWT instead of kb+jwt',
      code: 'key_binding_invalid',
      run: editing((p) => resignKb(p, (h) => Object.assign(h, { typ: 'JWT' }))),
    },
    {
      name: 'key-binding JWT signed by another key',
      code: 'key_binding_invalid',
      run: overriding({ kbKey: otherKey }),
    },
    { name: 'nonce mismatch', code: 'nonce_mismatch', run: overriding({ nonce: 'N'.repeat(43) }) },
    {
      name: 'aud mismatch',
      code: 'audience_mismatch',
      run: overriding({ aud: 'origin:https://attacker.example' }),
    },
    {
      name: 'stale iat (6 min old)',
      code: 'key_binding_stale',
      run: (ctx) => overriding({ iat: nowS() - 360 })(ctx),
    },
    {
      name: 'future iat (1 min ahead)',
      code: 'key_binding_stale',
      run: (ctx) => overriding({ iat: nowS() + 60 })(ctx),
    },
    {
      name: 'sd_hash mismatch (disclosures reordered after binding)',
      code: 'sd_hash_mismatch',
      run: editing((p) => {
        const parts = p.split('~');
        const disclosures = parts.slice(1, -1);
        expect(disclosures.length).toBeGreaterThan(1);
        return [parts[0], ...disclosures.reverse(), parts.at(-1)].join('~');
      }),
    },
    // --- transaction data (sign, attestation) ---
    {
      name: 'sign: missing transaction_data_hashes',
      code: 'transaction_data_missing',
      workflow: 'sign',
      run: overriding({ omitTransactionDataHashes: true }),
    },
    {
      name: 'sign: altered transaction_data_hashes value',
      code: 'transaction_data_mismatch',
      workflow: 'sign',
      run: overriding({ transactionDataHashes: [b64uSha256('something else')] }),
    },
    {
      name: 'sign: wrong document hash (wallet signed other bytes)',
      code: 'transaction_data_mismatch',
      workflow: 'sign',
      run: overriding((request) => ({ transactionDataSigned: [withOtherDocumentHash(request)] })),
    },
    {
      name: 'attestation: altered terms hash',
      code: 'transaction_data_mismatch',
      workflow: 'attestation',
      run: overriding((request) => {
        const td = decodeB64Json((request.transaction_data as string[])[0] as string);
        td.terms_sha256 = sha256Hex(`${TERMS} And I waive all rights.`);
        return { transactionDataSigned: [encodeB64Json(td)] };
      }),
    },
  ];

  matrixTests(
    m,
    cases,
    [
      { name: 'hosted, presentation string passed through', run: editing((p) => p) },
      { name: 'hosted, key-binding JWT re-signed unchanged', run: editing((p) => resignKb(p, () => {})) },
    ],
    20,
  );
});
