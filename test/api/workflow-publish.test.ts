// Publishing an unchanged draft (issue 20): the answer is the latest revision itself, no new revision is
// written, and the revision list stays as it was. Any change (a step, API-only) publishes the next revision.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, createBusiness, startTestService, type TestService } from '../support/harness';

describe('publishWorkflow with an unchanged draft', () => {
  let t: TestService;
  let api: Api;

  beforeAll(async () => {
    t = await startTestService({ workers: false, label: 'workflow_publish' });
    api = new Api(t.baseUrl, (await createBusiness(t)).apiKey);
  });
  afterAll(async () => t?.stop());

  const publish = async (id: string) => {
    const r = await api.gql(
      'mutation($id: ID!) { publishWorkflow(workflowId: $id) { revision publishedAt steps { terms } } }',
      { id },
    );
    expect(r.errors).toBeUndefined();
    return r.data.publishWorkflow as { revision: number; publishedAt: string };
  };
  const revisions = async (id: string) => {
    const r = await api.gql(
      'query($id: ID!) { workflow(id: $id) { latestRevision } workflowRevisions(workflowId: $id) { revision } }',
      { id },
    );
    expect(r.errors).toBeUndefined();
    return {
      latest: r.data.workflow.latestRevision as number,
      list: (r.data.workflowRevisions as { revision: number }[]).map((x) => x.revision),
    };
  };

  it('answers the existing revision and writes none; a change publishes the next one', async () => {
    const created = await api.gql('mutation($i: CreateWorkflowInput!) { createWorkflow(input: $i) { id } }', {
      i: { name: 'idempotent', steps: [{ primitive: 'attestation', terms: 'I agree.' }] },
    });
    expect(created.errors).toBeUndefined();
    const id = created.data.createWorkflow.id as string;

    const first = await publish(id);
    expect(first.revision).toBe(1);
    const again = await publish(id);
    expect(again).toEqual(first);
    expect(await revisions(id)).toEqual({ latest: 1, list: [1] });

    // the same steps saved again (a no-op edit) still publish nothing
    const set = (steps: unknown, apiOnly?: boolean) =>
      api.gql(
        'mutation($id: ID!, $s: [WorkflowStepInput!]!, $a: Boolean) { setWorkflowSteps(workflowId: $id, steps: $s, apiOnly: $a) { id } }',
        { id, s: steps, a: apiOnly },
      );
    expect((await set([{ primitive: 'attestation', terms: 'I agree.' }])).errors).toBeUndefined();
    expect((await publish(id)).revision).toBe(1);

    // changed terms: revision 2
    expect((await set([{ primitive: 'attestation', terms: 'I agree again.' }])).errors).toBeUndefined();
    expect((await publish(id)).revision).toBe(2);
    // only API-only changed: revision 3
    expect(
      (await set([{ primitive: 'attestation', terms: 'I agree again.' }], false)).errors,
    ).toBeUndefined();
    expect((await publish(id)).revision).toBe(3);
    expect((await publish(id)).revision).toBe(3);
    expect(await revisions(id)).toEqual({ latest: 3, list: [1, 2, 3] });
  });
});
