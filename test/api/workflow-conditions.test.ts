// Workflow conditions (spec §3, ADR 0031) as a business observes them: a condition on a completed step's result
// ends the session failed with its documented failure_reason, skips to a later step, or completes the session
// early, all by itself (never awaiting_decision, also when a gate follows the step). Each outcome is in the
// step's signed audit record, the support timeline and the webhooks; publishing refuses a bad condition with
// workflow_invalid naming the field; GraphQL shows the conditions of drafts and revisions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditRecordSchema } from '../../server/src/modules/audit/audit.contract';
import { auditRecordProblem } from '../../server/src/modules/audit/verify';
import { declaredApi } from '../../server/src/tools/api-contract';

import { Api, createBusiness, type Json, startTestService, type TestService } from '../support/harness';
import { shareWithReferenceWallet, startedSession } from '../support/signer';
import { WebhookReceiver } from '../support/webhook-receiver';
import { publishWorkflow, type StepInput } from '../support/workflows';

/** The webhook payloads the service declares (RouteRegistry.addEvent). */
const WEBHOOK_EVENT_SCHEMAS = declaredApi().routes.events;

const TIMELINE = `query($id: ID!) { sessionTimeline(id: $id) {
  session { status currentStage failureReason { code stage window refusedResponses } }
  entries { kind stage code detail } } }`;

const CONDITION_FIELDS = 'claim operator values outcome skipTo failureReason';

describe('workflow conditions', () => {
  let t: TestService;
  let api: Api;
  const receiver = new WebhookReceiver();
  let ageWf: string;
  let gatedAgeWf: string;
  let nationalityWf: string;
  let skipWf: string;
  let completeWf: string;
  let gatedSkipWf: string;
  let laterAgeWf: string;

  const underAge: StepInput = {
    primitive: 'age_verify',
    threshold: 18,
    conditions: [
      {
        claim: 'over',
        operator: 'equals',
        values: ['false'],
        outcome: 'fail',
        failureReason: 'age_requirement_not_met',
      },
    ],
  };
  const attest = (terms: string): StepInput => ({ primitive: 'attestation', terms });

  beforeAll(async () => {
    t = await startTestService({ label: 'conditions' });
    await receiver.start();
    api = new Api(t.baseUrl, (await createBusiness(t)).apiKey);
    ({ workflowId: ageWf } = await publishWorkflow(api, [underAge, attest('Terms A')], receiver.url));
    ({ workflowId: laterAgeWf } = await publishWorkflow(api, [attest('Terms A'), underAge], receiver.url));
    ({ workflowId: gatedAgeWf } = await publishWorkflow(api, [
      { ...underAge, gateAfter: true },
      attest('A'),
    ]));
    ({ workflowId: nationalityWf } = await publishWorkflow(api, [
      {
        primitive: 'identify',
        claims: ['given_name', 'nationality'],
        conditions: [{ claim: 'nationality', operator: 'not_in', values: ['AT', 'CH'], outcome: 'fail' }],
      },
      attest('Terms A'),
    ]));
    ({ workflowId: skipWf } = await publishWorkflow(api, [
      {
        primitive: 'age_verify',
        threshold: 18,
        conditions: [{ claim: 'over', operator: 'equals', values: ['true'], outcome: 'skip', skipTo: 2 }],
      },
      attest('Skipped terms'),
      attest('Final terms'),
    ]));
    ({ workflowId: gatedSkipWf } = await publishWorkflow(api, [
      {
        primitive: 'age_verify',
        threshold: 18,
        gateAfter: true,
        conditions: [{ claim: 'over', operator: 'equals', values: ['true'], outcome: 'skip', skipTo: 2 }],
      },
      attest('Skipped terms'),
      attest('Final terms'),
    ]));
    ({ workflowId: completeWf } = await publishWorkflow(api, [
      {
        primitive: 'identify',
        claims: ['nationality', 'document_status'],
        conditions: [
          { claim: 'document_status', operator: 'equals', values: ['valid'], outcome: 'complete' },
        ],
      },
      attest('Never reached'),
    ]));
  });
  afterAll(async () => {
    await receiver.stop();
    await t?.stop();
  });

  const session = async (workflowId: string) =>
    startedSession(t.baseUrl, await api.rest('POST', '/v1/sessions', { workflow_id: workflowId }));
  const hooksOf = async (id: string, event: string) => {
    await expect
      .poll(() => receiver.deliveries.some((d) => d.body.event === event && d.body.data.session_id === id), {
        timeout: 20_000,
      })
      .toBe(true);
    return receiver.deliveries.filter((d) => d.body.event === event && d.body.data.session_id === id);
  };
  /** The terms an attestation wallet request binds (its transaction_data, base64url JSON). */
  const termsOf = (wr: { body: Json }): string =>
    JSON.parse(Buffer.from(wr.body.request.transaction_data[0], 'base64url').toString('utf8')).terms;
  const timeline = async (id: string) => (await api.gql(TIMELINE, { id })).data.sessionTimeline;

  it('age_verify "over is false => fail": a minor ends failed with the chosen failure_reason, everywhere', async () => {
    const { id, signer } = await session(ageWf);
    const res = await shareWithReferenceWallet(t.svc, signer, 'minor');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('failed');

    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('failed');
    expect(read.body.failure_reason).toEqual({
      code: 'age_requirement_not_met',
      stage: 0,
      window: null,
      refused_responses: null,
    });
    // the step itself completed: its result is kept, over false
    expect(read.body.results).toHaveLength(1);
    expect(read.body.results[0]).toMatchObject({ stage: 0, over: false, threshold: 18 });

    // the step's signed audit record names the condition and its outcome
    const audit = await api.rest('GET', `/v1/audits/${id}_0`);
    expect(audit.status).toBe(200);
    expect(audit.body.condition).toEqual({
      index: 0,
      claim: 'over',
      operator: 'equals',
      outcome: 'fail',
      failure_reason: 'age_requirement_not_met',
    });
    expect(AuditRecordSchema.safeParse(audit.body).success).toBe(true);
    // signed with it: the record, condition included, verifies against the public key set
    const jwks = await api.rest('GET', '/.well-known/service-audit-jwks.json');
    expect(auditRecordProblem(audit.body, jwks.body)).toBeNull();
    expect(
      auditRecordProblem(
        { ...audit.body, condition: { ...audit.body.condition, outcome: 'complete' } },
        jwks.body,
      ),
    ).not.toBeNull();

    const [step] = await hooksOf(id, 'step.completed');
    expect(step?.body.data.condition).toEqual(audit.body.condition);
    const [failed] = await hooksOf(id, 'session.failed');
    // the business's count agrees with the person's page and receipt: the age check the condition failed is
    // not a completed step, although its wallet answer was verified and step.completed sent (issue 29)
    expect(failed?.body.data).toEqual({
      session_id: id,
      status: 'failed',
      workflow_id: ageWf,
      workflow_revision: 1,
      completed_steps: 0,
      failure_reason: read.body.failure_reason,
      condition: { stage: 0, index: 0, outcome: 'fail' },
    });

    const tl = await timeline(id);
    const kinds = tl.entries.map((e: Json) => e.kind).filter((k: string) => !k.startsWith('webhook_'));
    expect(kinds.slice(-3)).toEqual(['wallet_response_accepted', 'condition_matched', 'failed']);
    expect(tl.entries.find((e: Json) => e.kind === 'condition_matched')).toMatchObject({
      stage: 0,
      code: 'fail',
      detail: { index: 0, claim: 'over', outcome: 'fail', failure_reason: 'age_requirement_not_met' },
    });
    expect(tl.entries.find((e: Json) => e.kind === 'failed')).toMatchObject({
      stage: 0,
      code: 'age_requirement_not_met',
    });
    // (read last: a read of the page adds its own timeline entry) the person's page never shows the refused
    // step as done, and knows why it ended (issue 29)
    const page = (await signer.session()).body;
    expect(page.completedStages).toEqual([]);
    expect(page.failure).toEqual({ code: 'age_requirement_not_met', stage: 0, window: null });
  });

  it('a condition failing a later step: completed_steps counts the steps before it, not the failed one', async () => {
    const { id, signer } = await session(laterAgeWf);
    expect((await shareWithReferenceWallet(t.svc, signer, 'minor')).body.status).toBe('in_progress');
    expect((await shareWithReferenceWallet(t.svc, signer, 'minor')).body.status).toBe('failed');
    expect((await api.rest('GET', `/v1/sessions/${id}`)).body.results).toHaveLength(2);
    // deliveries arrive in order per session: once session.failed is here, both step.completed are
    const [failed] = await hooksOf(id, 'session.failed');
    expect((await hooksOf(id, 'step.completed')).map((d) => d.body.data.stage)).toEqual([0, 1]);
    expect(failed?.body.data).toMatchObject({
      completed_steps: 1,
      failure_reason: { code: 'age_requirement_not_met', stage: 1 },
      condition: { stage: 1, index: 0, outcome: 'fail' },
    });
    expect((await signer.session()).body.completedStages).toEqual([0]);
  });

  it('an adult does not match "over is false" and goes on to the next step', async () => {
    const { id, signer } = await session(ageWf);
    const res = await shareWithReferenceWallet(t.svc, signer, 'adult');
    expect(res.body.status).toBe('in_progress');
    expect(res.body.current_stage).toBe(1);
    expect((await api.rest('GET', `/v1/audits/${id}_0`)).body).not.toHaveProperty('condition');
  });

  it('a fail outcome overrides the gate after the step: failed, never awaiting_decision', async () => {
    const { id, signer } = await session(gatedAgeWf);
    expect((await shareWithReferenceWallet(t.svc, signer, 'minor')).body.status).toBe('failed');
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('failed');
    expect(read.body.decision_due).toBeNull();
    expect((await timeline(id)).entries.map((e: Json) => e.kind)).not.toContain('awaiting_decision');
  });

  it('identify "nationality not in {AT, CH} => fail": a DE national ends failed with condition_not_met', async () => {
    const { id, signer } = await session(nationalityWf);
    expect((await shareWithReferenceWallet(t.svc, signer, 'adult')).body.status).toBe('failed');
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.failure_reason).toEqual({
      code: 'condition_not_met',
      stage: 0,
      window: null,
      refused_responses: null,
    });
    expect(read.body.results[0].claims).toEqual({ given_name: 'Erika', nationality: 'DE' });
    expect((await api.rest('GET', `/v1/audits/${id}_0`)).body.condition).toMatchObject({
      claim: 'nationality',
      operator: 'not_in',
      outcome: 'fail',
      failure_reason: 'condition_not_met',
    });
  });

  it('a skip outcome skips a step: the session goes on at the target and completes there', async () => {
    const { id, signer } = await session(skipWf);
    const first = await shareWithReferenceWallet(t.svc, signer, 'adult');
    expect(first.body.status).toBe('in_progress');
    expect(first.body.current_stage).toBe(2);
    // the person's page does not show the skipped step as done
    expect((await signer.session()).body.completedStages).toEqual([0]);
    // the next wallet request is the target's: the final terms, not the skipped ones
    const wr = await signer.walletRequest();
    expect(wr.status).toBe(200);
    expect(termsOf(wr)).toBe('Final terms');
    const response = await t.svc.wallet.respond({
      persona: 'adult',
      request: wr.body.request,
      origin: t.baseUrl,
    });
    expect((await signer.submit(wr.body.request_id, response)).body.status).toBe('completed');

    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('completed');
    expect(read.body.results.map((r: Json) => r.stage)).toEqual([0, 2]);
    expect((await api.rest('GET', `/v1/audits/${id}_0`)).body.condition).toEqual({
      index: 0,
      claim: 'over',
      operator: 'equals',
      outcome: 'skip',
      skip_to: 2,
    });
    const tl = await timeline(id);
    expect(tl.entries.find((e: Json) => e.kind === 'condition_matched')).toMatchObject({
      stage: 0,
      code: 'skip',
      detail: { skip_to: 2 },
    });
  });

  it('a skip keeps the gate after the step: the business decides, and continue starts the skip target', async () => {
    const { id, signer } = await session(gatedSkipWf);
    expect((await shareWithReferenceWallet(t.svc, signer, 'adult')).body.status).toBe('awaiting_decision');
    const continued = await api.rest('POST', `/v1/sessions/${id}/continue`);
    expect(continued.status).toBe(200);
    expect(continued.body.status).toBe('in_progress');
    const projection = await signer.session();
    expect(projection.body.currentStage).toBe(2);
    expect(projection.body.completedStages).toEqual([0]);
    const wr = await signer.walletRequest();
    expect(termsOf(wr)).toBe('Final terms');
  });

  it('a complete outcome completes the session early, and session.completed says which condition', async () => {
    const { id, signer } = await session(completeWf);
    expect((await shareWithReferenceWallet(t.svc, signer, 'adult')).body.status).toBe('completed');
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('completed');
    expect(read.body.results).toHaveLength(1);
    expect(read.body).not.toHaveProperty('failure_reason');
    // the webhook endpoint is the business's, so this workflow's events reach the receiver too
    const [completed] = await hooksOf(id, 'session.completed');
    expect(completed?.body.data).toEqual({
      session_id: id,
      status: 'completed',
      workflow_id: completeWf,
      workflow_revision: 1,
      completed_steps: 1,
      condition: { stage: 0, index: 0, outcome: 'complete' },
    });
  });

  it('publish refuses bad conditions with workflow_invalid naming the field', async () => {
    const refusal = async (steps: StepInput[]) => {
      const created = await api.gql(
        `mutation($input: CreateWorkflowInput!) { createWorkflow(input: $input) { id } }`,
        { input: { name: 'Bad', steps } },
      );
      return created.errors?.[0];
    };
    const cases: [StepInput[], string, RegExp][] = [
      [
        [
          {
            primitive: 'age_verify',
            threshold: 18,
            conditions: [{ claim: 'nationality', operator: 'equals', values: ['DE'], outcome: 'fail' }],
          },
        ],
        'steps[0].conditions[0].claim',
        /Step 1: condition 1 tests "nationality"; this step can test over\./,
      ],
      [
        [
          {
            ...underAge,
            conditions: [{ claim: 'over', operator: 'equals', values: ['true'], outcome: 'skip', skipTo: 1 }],
          },
          attest('A'),
          attest('B'),
        ],
        'steps[0].conditions[0].skipTo',
        /skip to a step after the next one/,
      ],
      [
        [
          {
            primitive: 'identify',
            claims: ['nationality'],
            conditions: [{ claim: 'nationality', operator: 'in', values: ['Germany'], outcome: 'fail' }],
          },
        ],
        'steps[0].conditions[0].values',
        /ISO 3166-1 alpha-2/,
      ],
      [
        [
          attest('A'),
          {
            primitive: 'attestation',
            terms: 'B',
            conditions: [{ claim: 'over', operator: 'equals', values: ['true'], outcome: 'complete' }],
          },
        ],
        'steps[1].conditions',
        /Step 2: conditions apply to identify and age_verify steps/,
      ],
    ];
    for (const [steps, param, message] of cases) {
      const e = await refusal(steps);
      expect(e?.extensions).toMatchObject({ code: 'workflow_invalid', status: 400, param });
      expect(e?.message).toMatch(message);
    }
  });

  it('GraphQL shows the conditions of the draft and of the published revision', async () => {
    const draft = await api.gql(
      `query($id: ID!) { workflow(id: $id) { draftSteps { primitive gateAfter conditions { ${CONDITION_FIELDS} } } } }`,
      {
        id: skipWf,
      },
    );
    expect(draft.data.workflow.draftSteps[0]).toEqual({
      primitive: 'age_verify',
      gateAfter: false,
      conditions: [
        {
          claim: 'over',
          operator: 'equals',
          values: ['true'],
          outcome: 'skip',
          skipTo: 2,
          failureReason: null,
        },
      ],
    });
    expect(draft.data.workflow.draftSteps[1].conditions).toEqual([]);
    const revs = await api.gql(
      `query($id: ID!) { workflowRevisions(workflowId: $id) { revision steps { conditions { ${CONDITION_FIELDS} } } } }`,
      { id: ageWf },
    );
    expect(revs.data.workflowRevisions[0].steps[0].conditions).toEqual([
      {
        claim: 'over',
        operator: 'equals',
        values: ['false'],
        outcome: 'fail',
        skipTo: null,
        failureReason: 'age_requirement_not_met',
      },
    ]);
  });

  it('every delivery with a condition matches its published webhook schema', async () => {
    // runs last: the deliveries of the sessions above (fail, complete) have arrived by now
    const withCondition = receiver.deliveries.filter((d) => d.body.data?.condition);
    expect(new Set(withCondition.map((d) => d.body.event))).toEqual(
      new Set(['step.completed', 'session.failed', 'session.completed']),
    );
    for (const d of withCondition) {
      const r = (WEBHOOK_EVENT_SCHEMAS[d.body.event] as (typeof WEBHOOK_EVENT_SCHEMAS)[string]).safeParse(
        d.body,
      );
      expect(r.success ? [] : r.error.issues, d.body.event).toEqual([]);
    }
  });
});
