// The spec's limits that had no test (issue 20): each primitive's step window as the README documents it
// (identify 10 min, age_verify 3 min, attestation 10 min, sign 30 min; the spec's 3, 10 and 30 minutes),
// observed with the injected clock through the hosted transport and GET /v1/sessions/{id}; and attestation terms
// of at most 1,000 words at publish (1,001 refused with workflow_invalid, nothing published; 1,000 accepted).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { Api, createBusiness, type Json, startTestService, type TestService } from '../support/harness';
import { SignerClient } from '../support/signer';
import { createMultipart, minimalPdf, publishWorkflow, type StepInput } from '../support/workflows';

const MIN = 60_000;
const SEC = 1_000;

describe('spec limits', () => {
  const clock = new ManualClock(Date.now());
  let t: TestService;
  let api: Api;

  beforeAll(async () => {
    t = await startTestService({ clock, workers: false, label: 'spec_limits' });
    api = new Api(t.baseUrl, (await createBusiness(t)).apiKey);
    // the endpoint every create needs
    await publishWorkflow(
      api,
      [{ primitive: 'identify', claims: ['given_name'] }],
      'http://127.0.0.1:9/hooks',
    );
  });
  afterAll(async () => t?.stop());

  describe.each([
    ['age_verify', 3, { primitive: 'age_verify', threshold: 18 }],
    ['sign', 30, { primitive: 'sign', documents: 1 }],
    ['identify', 10, { primitive: 'identify', claims: ['given_name'] }],
    ['attestation', 10, { primitive: 'attestation', terms: 'I agree to the terms.' }],
  ] as const)('step window of %s', (primitive, minutes, step) => {
    let workflowId: string;
    beforeAll(async () => {
      ({ workflowId } = await publishWorkflow(api, [step as StepInput], undefined, `${primitive} window`));
    });

    const startedSession = async () => {
      const created =
        primitive === 'sign'
          ? await createMultipart(api, { workflow_id: workflowId, expires_in: '7200' }, [
              { filename: 'contract.pdf', type: 'application/pdf', bytes: minimalPdf() },
            ])
          : await api.rest('POST', '/v1/sessions', { workflow_id: workflowId, expires_in: 7200 });
      expect(created.status).toBe(201);
      const signer = new SignerClient(t.baseUrl, created.body.id);
      expect((await signer.start()).status).toBe(200);
      return { id: created.body.id as string, signer, startedAt: clock.now().getTime() };
    };
    const read = async (id: string): Promise<Json> => (await api.rest('GET', `/v1/sessions/${id}`)).body;

    it(`is ${minutes} minutes from the step's start: open until then, expired from then on`, async () => {
      const s = await startedSession();
      const wr = await s.signer.walletRequest();
      expect(wr.status).toBe(200);
      expect(new Date(wr.body.expires).getTime()).toBe(s.startedAt + minutes * MIN);

      clock.advance(minutes * MIN - SEC);
      expect((await read(s.id)).status).toBe('in_progress');
      expect((await s.signer.walletRequest()).status).toBe(200);

      clock.advance(SEC);
      const ended = await read(s.id);
      expect(ended.status).toBe('expired');
      expect(ended.failure_reason).toEqual({
        code: 'step_window_expired',
        stage: 0,
        window: 'step',
        refused_responses: null,
      });
      expect((await s.signer.rawWalletRequest()).status).toBe(410);
    });
  });

  describe('attestation terms at publish', () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
    const draft = async (terms: string): Promise<string> => {
      const r = await api.gql('mutation($i: CreateWorkflowInput!) { createWorkflow(input: $i) { id } }', {
        i: { name: 'terms', steps: [{ primitive: 'attestation', terms }] },
      });
      expect(r.errors).toBeUndefined();
      return r.data.createWorkflow.id;
    };
    const publish = (id: string) =>
      api.gql('mutation($id: ID!) { publishWorkflow(workflowId: $id) { revision steps { terms } } }', { id });

    it('refuses 1,001 words with workflow_invalid and publishes nothing', async () => {
      const id = await draft(words(1001));
      const r = await publish(id);
      expect(r.errors?.[0]?.extensions?.code).toBe('workflow_invalid');
      expect(r.errors?.[0]?.message).toContain('1000 words');
      const wf = await api.gql('query($id: ID!) { workflow(id: $id) { latestRevision } }', { id });
      expect(wf.data.workflow.latestRevision).toBe(0);
    });

    it('publishes exactly 1,000 words (whitespace of any kind between them)', async () => {
      const terms = words(1000).replace(/ /g, (_m, i: number) => (i % 7 === 0 ? '\n' : ' '));
      const id = await draft(terms);
      const r = await publish(id);
      expect(r.errors).toBeUndefined();
      expect(r.data.publishWorkflow.revision).toBe(1);
      expect(r.data.publishWorkflow.steps[0].terms).toBe(terms);
    });
  });
});
