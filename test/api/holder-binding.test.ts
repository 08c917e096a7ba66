// One person across the steps (ADR 0026), as the business observes it over the API: a later step presented by
// someone other than the holder of the first step is refused with holder_mismatch and leaves nothing behind
// (no result, no audit record, no evidence, no step.completed); the same holder binds by key, the same person
// with another credential key binds by name and birth date, and a step the workflow opts out accepts anyone and
// says so in its result. Driven with the sandbox reference wallet's personas (SD-JWT VC and ISO mdoc).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditRecordEntity } from '../../server/src/modules/audit/audit-record.entity';
import { StepEvidenceEntity } from '../../server/src/modules/evidence/step-evidence.entity';
import { StepResultEntity } from '../../server/src/modules/session/step-result.entity';
import { Api, createBusiness, type Json, startTestService, type TestService } from '../support/harness';
import { pdftotext, SignerBrowser, scratch } from '../support/receipts';
import { createSignSession, pdfPart, setUpSignWorkflow, startSignSession } from '../support/sign-workflow';
import { type SignerClient, startedSession } from '../support/signer';
import { WebhookReceiver } from '../support/webhook-receiver';
import { minimalPdf, publishWorkflow, type StepInput } from '../support/workflows';

const TERMS = 'I took out the loan described in the contract and accept its terms.';

describe('one person across the steps', () => {
  let t: TestService;
  let api: Api;
  const receiver = new WebhookReceiver();
  let loanWf: string;
  let openWf: string;
  let ageWf: string;

  beforeAll(async () => {
    t = await startTestService({ label: 'holder_binding' });
    await receiver.start();
    const biz = await createBusiness(t);
    api = new Api(t.baseUrl, biz.apiKey);
    // the scenario of the issue: identify -> gate -> sign -> attestation
    ({ workflowId: loanWf } = await setUpSignWorkflow(api, {
      before: [
        { primitive: 'identify', claims: ['given_name', 'family_name', 'birth_date'], gateAfter: true },
      ],
      after: [{ primitive: 'attestation', terms: TERMS }],
      webhookUrl: receiver.url,
      name: 'Loan',
    }));
    ({ workflowId: openWf } = await setUpSignWorkflow(api, {
      identifyBefore: ['given_name', 'family_name', 'birth_date'],
      sign: { holder: 'any' },
    }));
    ({ workflowId: ageWf } = await setUpSignWorkflow(api, {
      before: [{ primitive: 'age_verify', threshold: 18 }],
    }));
  });
  afterAll(async () => {
    await receiver.stop();
    await t?.stop();
  });

  const loanPdf = () => [pdfPart('loan.pdf', minimalPdf('Loan contract'))];
  const newSession = (workflowId: string) => startSignSession(api, workflowId, loanPdf());

  /** The person's share of the current step with the sandbox reference wallet, as `persona`. */
  async function share(signer: SignerClient, persona: string) {
    const wr = await signer.walletRequest();
    expect(wr.status).toBe(200);
    const res = await fetch(`${t.baseUrl}/sandbox/wallet/respond`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ persona, request: wr.body.request, origin: t.baseUrl }),
    });
    expect(res.status).toBe(200);
    const out = await signer.submit(wr.body.request_id, ((await res.json()) as Json).response);
    return out;
  }

  /** The step.completed delivery of `stage` of session `id`, once the relay delivered it. */
  async function stepCompleted(id: string, stage: number): Promise<Json> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const hit = receiver.deliveries.find(
        (d) =>
          d.body.event === 'step.completed' && d.body.data.session_id === id && d.body.data.stage === stage,
      );
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no step.completed for stage ${stage}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const read = async (id: string) => (await api.rest('GET', `/v1/sessions/${id}`)).body as Json;

  /** Nothing of `stage` exists: no result, no audit record, no evidence, no step.completed delivery. */
  async function nothingStoredFor(id: string, stage: number) {
    const session = await read(id);
    expect(session.results.map((r: Json) => r.stage)).not.toContain(stage);
    const repo = <T>(e: new () => T) => t.svc.ds.getRepository(e as never);
    expect(await repo(StepResultEntity).countBy({ sessionId: id, stage } as never)).toBe(0);
    expect(await repo(AuditRecordEntity).countBy({ sessionId: id, stage } as never)).toBe(0);
    expect(await repo(StepEvidenceEntity).countBy({ sessionId: id, stage } as never)).toBe(0);
    const steps = receiver.deliveries.filter(
      (d) =>
        d.body.event === 'step.completed' && d.body.data.session_id === id && d.body.data.stage === stage,
    );
    expect(steps).toEqual([]);
  }

  /** Erika identifies and the business continues past the gate: the session waits at the sign step. */
  async function erikaIdentified(persona: string) {
    const { id, signer } = await newSession(loanWf);
    expect((await share(signer, persona)).status).toBe(200);
    expect((await api.rest('POST', `/v1/sessions/${id}/continue`)).status).toBe(200);
    return { id, signer };
  }

  for (const [format, erika, max] of [
    ['SD-JWT VC', 'adult', 'minor'],
    ['ISO mdoc', 'adult_mdoc', 'minor_mdoc'],
  ] as const) {
    it(`${format}: Erika identifies, Max presents at the sign step: holder_mismatch, nothing of the step stored`, async () => {
      const { id, signer } = await erikaIdentified(erika);
      const refused = await share(signer, max);
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe('holder_mismatch');
      const session = await read(id);
      expect(session.status).toBe('in_progress');
      expect(session.results).toHaveLength(1);
      await nothingStoredFor(id, 1);
      // counted like any other refusal: Erika herself can still sign, then attest; every step binds by key
      expect((await share(signer, erika)).status).toBe(200);
      expect((await share(signer, erika)).status).toBe(200);
      const done = await read(id);
      expect(done.status).toBe('completed');
      // the business heard of each step once, and the sign step it heard of is Erika's
      await stepCompleted(id, 2);
      const heard = receiver.deliveries.filter(
        (d) => d.body.event === 'step.completed' && d.body.data.session_id === id,
      );
      expect(heard.map((d) => d.body.data.stage).sort()).toEqual([0, 1, 2]);
      // the binding is a fact, never a key (ADR 0046); the sign and attestation results carry the key of
      // their holder signature, the same one
      expect(done.results.map((r: Json) => bindingOf(r))).toEqual([
        { by: 'first', bound_to_stage: null },
        { by: 'holder_key', bound_to_stage: 0 },
        { by: 'holder_key', bound_to_stage: 0 },
      ]);
      expect(done.results[1].holder_key.thumbprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(done.results[2].holder_key.thumbprint).toBe(done.results[1].holder_key.thumbprint);
      expect(JSON.stringify(done.results[0])).not.toContain(done.results[1].holder_key.thumbprint);
    });
  }

  it('the webhook and the audit record of each step carry the binding', async () => {
    const { id, signer } = await erikaIdentified('adult');
    expect((await share(signer, 'adult')).status).toBe(200);
    const hook = await stepCompleted(id, 1);
    expect(hook?.body.data.holder_binding).toMatchObject({ by: 'holder_key', bound_to_stage: 0 });
    const audit = await api.rest('GET', `/v1/audits/${id}_1`);
    expect(audit.status).toBe(200);
    expect(JSON.stringify(audit.body)).toContain('"holder_binding"');
  });

  it('the same person with a credential under another key binds by name and birth date', async () => {
    const { id, signer } = await erikaIdentified('adult');
    const wr = await signer.walletRequest();
    // the later step asks for the first step's identifying claims as well as the signer's names
    const sdJwt = wr.body.request.dcql_query.credentials.find((c: Json) => c.id === 'pid');
    expect(sdJwt.claims.map((c: Json) => c.path[0])).toEqual(['given_name', 'family_name', 'birth_date']);
    expect((await share(signer, 'adult_second_device')).status).toBe(200);
    const session = await read(id);
    const [first, second] = session.results.map((r: Json) => bindingOf(r));
    expect(first).toEqual({ by: 'first', bound_to_stage: null });
    expect(second).toEqual({ by: 'claims', bound_to_stage: 0 });
  });

  it("a later age check asks for the first step's name and birth date, binds by them, and still gives only {over, threshold}", async () => {
    const { workflowId } = await publishWorkflow(api, [
      { primitive: 'identify', claims: ['given_name', 'family_name', 'birth_date'] },
      { primitive: 'age_verify', threshold: 18 },
    ]);
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const { id, signer } = await startedSession(t.baseUrl, created);
    expect((await share(signer, 'adult')).status).toBe(200);
    const wr = await signer.walletRequest();
    const sdJwt = wr.body.request.dcql_query.credentials.find((c: Json) => c.id === 'pid');
    expect(sdJwt.claim_sets).toEqual([
      ['age_over', 'holder_given_name', 'holder_family_name', 'holder_birth_date'],
      ['birth_date', 'holder_given_name', 'holder_family_name', 'holder_birth_date'],
    ]);
    expect((await share(signer, 'adult_second_device')).status).toBe(200);
    const { completed_at: _c, ...age } = (await read(id)).results[1];
    expect(age).toEqual({
      stage: 1,
      primitive: 'age_verify',
      audit_id: `${id}_1`,
      over: true,
      threshold: 18,
      holder_binding: { by: 'claims', bound_to_stage: 0 },
    });
  });

  it('after an age check (no identity disclosed) only the same key binds: another key is refused', async () => {
    const { id, signer } = await newSession(ageWf);
    const age = await share(signer, 'adult');
    expect(age.status).toBe(200);
    // the age step's request is unchanged: it still asks only for the age statement (or the birth date)
    const first = await read(id);
    expect(Object.keys(first.results[0]).sort()).toEqual([
      'audit_id',
      'completed_at',
      'holder_binding',
      'over',
      'primitive',
      'stage',
      'threshold',
    ]);
    const refused = await share(signer, 'adult_second_device');
    expect(refused.body.code).toBe('holder_mismatch');
    await nothingStoredFor(id, 1);
    expect((await share(signer, 'adult')).status).toBe(200);
    expect(bindingOf((await read(id)).results[1]).by).toBe('holder_key');
  });

  it('a step the workflow opts out accepts another person and says so in its result and revision', async () => {
    const rev = await api.gql(
      `query($id: ID!) { workflowRevisions(workflowId: $id) { steps { primitive holder } } }`,
      { id: openWf },
    );
    expect(rev.errors).toBeUndefined();
    expect(rev.data.workflowRevisions[0].steps).toEqual([
      { primitive: 'identify', holder: 'same_as_first' },
      { primitive: 'sign', holder: 'any' },
    ]);
    const { id, signer } = await newSession(openWf);
    expect((await share(signer, 'adult')).status).toBe(200);
    expect((await share(signer, 'minor')).status).toBe(200);
    const session = await read(id);
    expect(session.status).toBe('completed');
    expect(bindingOf(session.results[1])).toMatchObject({ by: 'opted_out', bound_to_stage: null });
  });

  it('the receipt says who presented each step', async () => {
    const created = await createSignSession(api, loanWf, loanPdf());
    const browser = new SignerBrowser(t.baseUrl, created.body.id);
    await browser.start();
    expect((await share(browser.client, 'adult')).status).toBe(200);
    expect((await api.rest('POST', `/v1/sessions/${created.body.id}/continue`)).status).toBe(200);
    expect((await share(browser.client, 'adult_second_device')).status).toBe(200);
    const pdf = await browser.pdf();
    expect(pdf.status).toBe(200);
    const files = scratch();
    try {
      const text = pdftotext(files.write('receipt.pdf', pdf.bytes)).replace(/\s+/g, ' ');
      expect(text).toContain('Shared in the first step, which sets whose verification this is');
      expect(text).toContain(
        'Shared by the same person as in step 1 (another wallet; the same name and date of birth)',
      );
    } finally {
      files.done();
    }
  });

  it('publishing refuses holder "any" on the first step and an unknown holder value', async () => {
    for (const [steps, code] of [
      [[{ primitive: 'sign', documents: 1, holder: 'any' }], 'workflow_invalid'],
      [
        [
          { primitive: 'identify', claims: ['given_name'] },
          { primitive: 'sign', documents: 1, holder: 'someone' },
        ],
        'validation_failed', // not a HolderPolicy value: refused by the schema
      ],
    ] as [StepInput[], string][]) {
      const created = await api.gql(
        `mutation($input: CreateWorkflowInput!) { createWorkflow(input: $input) { id } }`,
        { input: { name: 'Bad', steps } },
      );
      expect(created.errors?.[0]?.extensions?.code).toBe(code);
      expect(created.data?.createWorkflow ?? null).toBeNull();
    }
  });
});

/** The holder_binding of a result as GET /v1/sessions/{id} shows it. */
const bindingOf = (r: Json): Json => r.holder_binding;
