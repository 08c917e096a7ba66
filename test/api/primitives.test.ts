// age_verify, sign and attestation over the hosted transport with the reference wallet, as the business and an
// auditor observe them: the webhook data and the read of each primitive, the holder signature that verifies
// offline against the holder key and covers the exact documents or terms (OpenID4VP transaction_data), the
// encrypted evidence under a KMS envelope key, and the refusals of missing or altered transaction data.
import { createHash } from 'node:crypto';
import { base64url, compactVerify, decodeJwt, importJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditRecordEntity } from '../../server/src/modules/audit/audit-record.entity';
import { StepEvidenceEntity } from '../../server/src/modules/evidence/step-evidence.entity';
import type { PresentOverrides } from '../../server/src/modules/sandbox/reference-wallet';
import { StepResultEntity } from '../../server/src/modules/session/step-result.entity';
import { Api, createBusiness, type Json, startTestService, type TestService } from '../support/harness';
import { pdfPart, setUpSignWorkflow, startSignSession, textPart } from '../support/sign-workflow';
import { SignerClient, startedSession } from '../support/signer';
import { signatureValid, WebhookReceiver } from '../support/webhook-receiver';
import { minimalPdf, publishWorkflow } from '../support/workflows';

const sha256Hex = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const txHash = (s: string) => createHash('sha256').update(s, 'utf8').digest('base64url');
const decodeTx = (s: string): Json => JSON.parse(new TextDecoder().decode(base64url.decode(s)));
const TERMS = 'I confirm that I have received the device in good condition and accept the rental terms.';

describe('age_verify, sign and attestation over the hosted transport', () => {
  let t: TestService;
  let api: Api;
  let secret: string;
  const receiver = new WebhookReceiver();
  let ageWf: string;
  let signWf: string;
  let attestWf: string;
  const contract = minimalPdf('Contract no. 42');
  const annex = 'Annex A: price list\n';

  beforeAll(async () => {
    t = await startTestService({ label: 'primitives' });
    await receiver.start();
    const biz = await createBusiness(t);
    api = new Api(t.baseUrl, biz.apiKey);
    let hook: string | undefined;
    ({ workflowId: ageWf, webhookSecret: hook } = await publishWorkflow(
      api,
      [
        { primitive: 'age_verify', threshold: 18 },
        { primitive: 'age_verify', threshold: 25 },
      ],
      receiver.url,
    ));
    secret = hook as string;
    ({ workflowId: signWf } = await setUpSignWorkflow(api, { documents: 2 }));
    ({ workflowId: attestWf } = await publishWorkflow(api, [{ primitive: 'attestation', terms: TERMS }]));
  });
  afterAll(async () => {
    await receiver.stop();
    await t?.stop();
  });

  const started = (created: { status: number; body: Json }) => startedSession(t.baseUrl, created);
  const newSignSession = () =>
    startSignSession(api, signWf, [pdfPart('contract.pdf', contract), textPart('annex.txt', annex)]);
  const newAttestSession = () => api.rest('POST', '/v1/sessions', { workflow_id: attestWf }).then(started);

  async function share(signer: SignerClient, persona = 'adult', overrides: PresentOverrides = {}) {
    const wr = await signer.walletRequest();
    expect(wr.status).toBe(200);
    const response = await t.svc.wallet.presentWith({
      persona,
      request: wr.body.request,
      origin: t.baseUrl,
      overrides,
    });
    return { wr, res: await signer.submit(wr.body.request_id, response) };
  }

  /** The step.completed delivery of a session (deliveries of all sessions share the receiver). */
  async function stepHookOf(id: string) {
    await expect
      .poll(
        () =>
          receiver.deliveries.some((d) => d.body.event === 'step.completed' && d.body.data.session_id === id),
        {
          timeout: 20_000,
        },
      )
      .toBe(true);
    return receiver.deliveries.find(
      (d) => d.body.event === 'step.completed' && d.body.data.session_id === id,
    );
  }

  async function expectHolderProof(result: Json, sessionAudience: string) {
    // The holder signature verifies under the holder key, and covers exactly the transaction data sent.
    const key = await importJWK(result.holder_key.jwk, 'ES256');
    const { protectedHeader } = await compactVerify(result.holder_signature, key);
    expect(protectedHeader.typ).toBe('kb+jwt');
    const kb = decodeJwt(result.holder_signature);
    expect(kb.aud).toBe(sessionAudience);
    expect(kb.transaction_data_hashes).toEqual([txHash(result.transaction_data)]);
    expect(kb.transaction_data_hashes_alg).toBe('sha-256');
    expect(result.holder_key.thumbprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Object.keys(result.holder_key.jwk).sort()).toEqual(['crv', 'kty', 'x', 'y']);
  }

  it('age_verify: the business gets only over and threshold; the presentation is encrypted evidence', async () => {
    const adult = await started(await api.rest('POST', '/v1/sessions', { workflow_id: ageWf }));
    // threshold 18: the sandbox PID has age_over_18, so that is what the wallet discloses
    const first = await share(adult.signer);
    expect(first.res.status).toBe(200);
    const dcql = first.wr.body.request.dcql_query.credentials[0];
    expect(dcql.claim_sets).toEqual([['age_over'], ['birth_date']]);
    expect(dcql.claims[0].path).toEqual(['age_over_18']);
    // threshold 25: no age_over_25 in the credential, so the birth date answers
    expect((await share(adult.signer)).res.status).toBe(200);

    const read = await api.rest('GET', `/v1/sessions/${adult.id}`);
    expect(read.body.status).toBe('completed');
    // ADR 0026: both steps by Erika's key, the second bound to the first by it; ADR 0046: said as a fact,
    // with no key, thumbprint or anything derived from one
    const first0 = { by: 'first', bound_to_stage: null };
    const bound1 = { by: 'holder_key', bound_to_stage: 0 };
    expect(read.body.results.map(({ completed_at: _c, ...r }: Json) => r)).toEqual([
      {
        stage: 0,
        primitive: 'age_verify',
        audit_id: `${adult.id}_0`,
        over: true,
        threshold: 18,
        holder_binding: first0,
      },
      {
        stage: 1,
        primitive: 'age_verify',
        audit_id: `${adult.id}_1`,
        over: true,
        threshold: 25,
        holder_binding: bound1,
      },
    ]);
    const steps = (await receiver.waitFor('step.completed', 2)).filter(
      (d) => d.body.data.session_id === adult.id,
    );
    expect(steps.map((d) => d.body.data)).toEqual([
      {
        session_id: adult.id,
        stage: 0,
        primitive: 'age_verify',
        audit_id: `${adult.id}_0`,
        over: true,
        threshold: 18,
        holder_binding: first0,
      },
      {
        session_id: adult.id,
        stage: 1,
        primitive: 'age_verify',
        audit_id: `${adult.id}_1`,
        over: true,
        threshold: 25,
        holder_binding: bound1,
      },
    ]);
    expect(steps.every((d) => signatureValid(d, secret))).toBe(true);
    expect(JSON.stringify(steps.map((d) => d.body))).not.toMatch(/1984|birth/);

    // The audit record says which claim answered, never its value.
    const audit0 = await api.rest('GET', `/v1/audits/${adult.id}_0`);
    const audit1 = await api.rest('GET', `/v1/audits/${adult.id}_1`);
    expect(audit0.body.verification.age_basis).toBe('age_over_18');
    expect(audit1.body.verification.age_basis).toBe('birth_date');
    expect(JSON.stringify(audit1.body)).not.toMatch(/1984/);
    // ADR 0046: the continuity facts and the credential's status reference live in the sealed evidence only
    expect(audit1.body.verification.holder_binding).toEqual(bound1);
    expect(audit1.body.verification.status).toEqual({ status: 'valid' });
    expect(JSON.stringify([audit0.body, audit1.body])).not.toMatch(/thumbprint|"holder_key":|"idx"/);

    // Evidence: AES-256-GCM under a data key wrapped by the evidence key, not the audit signing key.
    const rows = await t.svc.ds.getRepository(StepEvidenceEntity).findBy({ sessionId: adult.id });
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.alg).toBe('A256GCM');
      expect(row.kid).toMatch(/\/cryptoKeys\/evidence-encryption\/cryptoKeyVersions\/\d+$/);
      expect(row.kid).not.toBe(audit0.body.service_signature.kid);
    }
    const jwks = await new Api(t.baseUrl).rest('GET', '/.well-known/service-audit-jwks.json');
    expect(jwks.body.keys.map((k: Json) => k.kid)).not.toContain(rows[0]?.kid);
    const plain = await t.svc.evidence.open(t.svc.ds.manager, adult.id, 1);
    const evidence = JSON.parse(String(plain));
    for (const row of rows) {
      const ct = Buffer.from(row.ciphertext, 'base64url');
      expect(ct.includes(Buffer.from(String(evidence.presentation).slice(0, 40)))).toBe(false);
    }
    expect(evidence.presentation).toMatch(/~[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(sha256Hex(plain as Buffer)).toBe(audit1.body.verification.evidence.plaintext_sha256);
    // an auditor who opens the evidence finds the holder key (continuity) and the status reference
    expect(evidence.holder_key_thumbprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(evidence.status_checked).toMatchObject({ status: 'valid', idx: expect.any(Number) });
    const evidence0 = JSON.parse(String(await t.svc.evidence.open(t.svc.ds.manager, adult.id, 0)));
    expect(evidence0.holder_key_thumbprint).toBe(evidence.holder_key_thumbprint);
    // the birth date is in the evidence (a disclosure), and only there
    const disclosures = (evidence.presentation as string)
      .split('~')
      .slice(1, -1)
      .map((d) => JSON.parse(Buffer.from(d, 'base64url').toString('utf8')));
    expect(disclosures).toEqual([[expect.any(String), 'birth_date', '1984-01-12']]);

    // A tampered ciphertext does not open.
    const row = rows.find((r) => r.stage === 0) as StepEvidenceEntity;
    const ct = Buffer.from(row.ciphertext, 'base64url');
    ct[0] = (ct[0] as number) ^ 1;
    await t.svc.ds
      .getRepository(StepEvidenceEntity)
      .update({ sessionId: adult.id, stage: 0 }, { ciphertext: ct.toString('base64url') });
    await expect(t.svc.evidence.open(t.svc.ds.manager, adult.id, 0)).rejects.toThrow(
      /unable to authenticate/,
    );
  });

  it('age_verify: the minor completes the step with over: false (not a refusal)', async () => {
    const minor = await started(await api.rest('POST', '/v1/sessions', { workflow_id: ageWf }));
    expect((await share(minor.signer, 'minor')).res.status).toBe(200);
    expect((await share(minor.signer, 'minor')).res.status).toBe(200);
    const read = await api.rest('GET', `/v1/sessions/${minor.id}`);
    expect(read.body.status).toBe('completed');
    expect(read.body.results.map((r: Json) => [r.over, r.threshold])).toEqual([
      [false, 18],
      [false, 25],
    ]);
  });

  it('sign: documents are bound by transaction_data; the result carries hashes, holder signature and key', async () => {
    const { id, signer } = await newSignSession();
    // The hosted page shows the documents (labels and hashes) before anything is shared.
    const projection = await signer.session();
    expect(projection.body.steps[0].documents).toEqual([
      {
        position: 0,
        label: 'contract.pdf',
        sha256: sha256Hex(contract),
        size: contract.length,
        contentType: 'application/pdf',
        shownToEnd: false,
      },
      {
        position: 1,
        label: 'annex.txt',
        sha256: sha256Hex(annex),
        size: annex.length,
        contentType: 'text/plain',
        shownToEnd: false,
      },
    ]);
    const { wr, res } = await share(signer);
    expect(res.status).toBe(200);
    const sent = wr.body.request.transaction_data;
    expect(sent).toHaveLength(1);
    expect(decodeTx(sent[0])).toEqual({
      type: 'urn:service:sign:1',
      credential_ids: ['pid', 'pid_mdoc', 'mdl'],
      transaction_data_hashes_alg: ['sha-256'],
      documents: [
        {
          label: 'contract.pdf',
          sha256: sha256Hex(contract),
          size: contract.length,
          content_type: 'application/pdf',
        },
        { label: 'annex.txt', sha256: sha256Hex(annex), size: annex.length, content_type: 'text/plain' },
      ],
    });

    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('completed');
    const result = read.body.results[0];
    expect(result.documents).toEqual([
      {
        label: 'contract.pdf',
        sha256: sha256Hex(contract),
        size: contract.length,
        content_type: 'application/pdf',
      },
      { label: 'annex.txt', sha256: sha256Hex(annex), size: annex.length, content_type: 'text/plain' },
    ]);
    expect(result.transaction_data).toBe(sent[0]);
    await expectHolderProof(result, `origin:${new URL(t.baseUrl).origin}`);

    const hook = await stepHookOf(id);
    expect(Object.keys(hook?.body.data ?? {}).sort()).toEqual(
      [
        'audit_id',
        'documents',
        'holder_binding',
        'holder_key',
        'holder_signature',
        'primitive',
        'session_id',
        'stage',
        'transaction_data',
      ].sort(),
    );
    expect(hook?.body.data.documents).toEqual(result.documents);
    const audit = await api.rest('GET', `/v1/audits/${id}_0`);
    expect(audit.body.verification.transaction_data_hashes).toEqual([txHash(sent[0])]);
    expect(audit.body.verification.checks).toContain('transaction_data');
    expect(await t.svc.ds.getRepository(StepEvidenceEntity).countBy({ sessionId: id })).toBe(1);

    // The bound browser downloads the exact originals; another browser cannot. (SignerClient keeps its
    // cookie private; the download is a plain GET with that cookie, as the page's link makes it.)
    const dl = await fetch(`${t.baseUrl}/t/sessions/${id}/documents/0`, {
      headers: { Cookie: (signer as unknown as { cookie: string }).cookie },
    });
    expect(dl.status).toBe(200);
    expect(dl.headers.get('content-type')).toBe('application/pdf');
    expect(dl.headers.get('content-disposition')).toMatch(/^attachment; filename="contract.pdf"/);
    expect(new Uint8Array(await dl.arrayBuffer())).toEqual(contract);
    const stranger = await fetch(`${t.baseUrl}/t/sessions/${id}/documents/0`);
    expect(stranger.status).toBe(403);
    expect((await stranger.json()).code).toBe('session_bound_elsewhere');
    const missing = await fetch(`${t.baseUrl}/t/sessions/${id}/documents/7`, {
      headers: { Cookie: (signer as unknown as { cookie: string }).cookie },
    });
    expect(missing.status).toBe(404);
  });

  it('attestation: the terms hash is bound the same way', async () => {
    const { id, signer } = await newAttestSession();
    const projection = await signer.session();
    expect(projection.body.steps[0]).toMatchObject({
      primitive: 'attestation',
      terms: TERMS,
      termsSha256: sha256Hex(TERMS),
    });
    const { wr, res } = await share(signer);
    expect(res.status).toBe(200);
    expect(decodeTx(wr.body.request.transaction_data[0])).toEqual({
      type: 'urn:service:attest:1',
      credential_ids: ['pid', 'pid_mdoc', 'mdl'],
      transaction_data_hashes_alg: ['sha-256'],
      terms_sha256: sha256Hex(TERMS),
      terms: TERMS,
    });
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    const result = read.body.results[0];
    expect(result.terms_sha256).toBe(sha256Hex(TERMS));
    await expectHolderProof(result, `origin:${new URL(t.baseUrl).origin}`);
    const hook = await stepHookOf(id);
    expect(Object.keys(hook?.body.data ?? {}).sort()).toEqual(
      [
        'audit_id',
        'holder_binding',
        'holder_key',
        'holder_signature',
        'primitive',
        'session_id',
        'stage',
        'terms_sha256',
        'transaction_data',
      ].sort(),
    );
  });

  /** The sign request's transaction data with one document hash replaced: what a wallet showing other bytes signs. */
  const withOtherDocumentHash = (sent: string) => {
    const td = decodeTx(sent);
    td.documents[0].sha256 = sha256Hex('some other contract');
    return base64url.encode(JSON.stringify(td));
  };

  const refusals: {
    name: string;
    session: () => Promise<{ id: string; signer: SignerClient }>;
    overrides: (sent: string) => PresentOverrides;
    code: string;
  }[] = [
    {
      name: 'sign: missing transaction_data_hashes',
      session: newSignSession,
      overrides: () => ({ omitTransactionDataHashes: true }),
      code: 'transaction_data_missing',
    },
    {
      name: 'sign: altered transaction_data_hashes',
      session: newSignSession,
      overrides: () => ({ transactionDataHashes: [txHash('something else')] }),
      code: 'transaction_data_mismatch',
    },
    {
      name: 'sign: a wrong document hash',
      session: newSignSession,
      overrides: (sent) => ({ transactionDataSigned: [withOtherDocumentHash(sent)] }),
      code: 'transaction_data_mismatch',
    },
    {
      name: 'sign: an extra hash',
      session: newSignSession,
      overrides: (sent) => ({ transactionDataHashes: [txHash(sent), txHash('extra')] }),
      code: 'transaction_data_mismatch',
    },
    {
      name: 'sign: another hash algorithm',
      session: newSignSession,
      overrides: () => ({ transactionDataHashesAlg: 'sha-512' }),
      code: 'transaction_data_mismatch',
    },
    {
      name: 'attestation: missing transaction_data_hashes',
      session: newAttestSession,
      overrides: () => ({ omitTransactionDataHashes: true }),
      code: 'transaction_data_missing',
    },
    {
      name: 'attestation: other terms',
      session: newAttestSession,
      overrides: (sent) => {
        const td = decodeTx(sent);
        td.terms = `${TERMS} And I waive all rights.`;
        return { transactionDataSigned: [base64url.encode(JSON.stringify(td))] };
      },
      code: 'transaction_data_mismatch',
    },
  ];

  it.each(refusals)(
    'refuses $name with $code and completes nothing',
    async ({ session, overrides, code }) => {
      const { id, signer } = await session();
      const wr = await signer.walletRequest();
      const sent = wr.body.request.transaction_data[0] as string;
      const response = await t.svc.wallet.presentWith({
        persona: 'adult',
        request: wr.body.request,
        origin: t.baseUrl,
        overrides: overrides(sent),
      });
      const res = await signer.submit(wr.body.request_id, response);
      expect(res.status).toBe(422);
      expect(res.body.code).toBe(code);
      const read = await api.rest('GET', `/v1/sessions/${id}`);
      expect(read.body.status).toBe('in_progress');
      expect(read.body.results).toEqual([]);
      expect(await t.svc.ds.getRepository(StepResultEntity).countBy({ sessionId: id })).toBe(0);
      expect(await t.svc.ds.getRepository(AuditRecordEntity).countBy({ sessionId: id })).toBe(0);
      expect(await t.svc.ds.getRepository(StepEvidenceEntity).countBy({ sessionId: id })).toBe(0);
    },
  );

  it('the reference wallet refuses a transaction data type it does not know', async () => {
    const { signer } = await newAttestSession();
    const wr = await signer.walletRequest();
    const td = decodeTx(wr.body.request.transaction_data[0]);
    const request = {
      ...wr.body.request,
      transaction_data: [base64url.encode(JSON.stringify({ ...td, type: 'urn:example:payment:1' }))],
    };
    await expect(
      t.svc.wallet.presentWith({ persona: 'adult', request, origin: t.baseUrl, overrides: {} }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
  });
});
