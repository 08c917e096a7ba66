// The intended use per workflow (issue 19, ADR 0042) as an integrator and a wallet observe it: a workflow's
// purpose (with its language) and intended-use identifier are set on create or on the draft, read back from the
// workflow and each published revision, refused with workflow_invalid naming the field, audited, and invisible
// to another business. In registrar mode a session's request object carries a registration certificate
// (rc-wrp+jwt) whose purpose is its pinned revision's (W1's for W1, W2's for W2) or, for a workflow without one,
// the business's default purpose.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { AccountAuditEntity } from '../../server/src/modules/accounts/accounts.entities';
import {
  Api,
  createBusiness,
  type Json,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';
import { crossDeviceRequest, registrationClaims, signedRequestOf } from '../support/signed-request';

const USE = 'intendedUse { purpose lang identifier }';
const CREATE = `mutation($i: CreateWorkflowInput!) { createWorkflow(input: $i) { id ${USE} } }`;
const SET_USE = `mutation($id: ID!, $u: IntendedUseInput) { setWorkflowIntendedUse(workflowId: $id, intendedUse: $u) { id ${USE} } }`;
const PUBLISH = `mutation($id: ID!) { publishWorkflow(workflowId: $id) { revision ${USE} } }`;
const READ = `query($id: ID!) { workflow(id: $id) { ${USE} } workflowRevisions(workflowId: $id) { revision ${USE} } }`;
const IDENTIFY = [{ primitive: 'identify', claims: ['given_name', 'family_name'] }];
const DEFAULT_PURPOSE = 'Know who our customers are';

describe('the intended use per workflow', () => {
  const clock = new ManualClock();
  let t: TestService;
  let a: { id: string; api: Api };
  let b: { id: string; api: Api };
  const wf: Record<'W1' | 'W2' | 'W3', string> = {} as never;

  const errorOf = (r: { errors?: Json[] }) => r.errors?.[0]?.extensions as Json | undefined;
  const claimsOf = async (workflowId: string) =>
    (await registrationClaims((await signedRequestOf(t.baseUrl, a.api, workflowId)).payload)).claims;

  beforeAll(async () => {
    t = await startTestService({ label: 'workflow-intended-use', clock, workers: false });
    const ca = await createBusiness(t, 'Acme Lending');
    a = { id: ca.businessId, api: new Api(t.baseUrl, ca.apiKey) };
    const cb = await createBusiness(t, 'Beta Bank');
    b = { id: cb.businessId, api: new Api(t.baseUrl, cb.apiKey) };
    wf.W3 = (await setUpIdentifyWorkflow(a.api, `${t.baseUrl}/dev/webhook-receiver`)).workflowId;
    const rp = await a.api.gql(
      'mutation($i: RelyingPartyInput!) { setRelyingParty(input: $i) { purpose } }',
      {
        i: { displayName: 'Acme Lending', purpose: DEFAULT_PURPOSE },
      },
    );
    expect(rp.errors).toBeUndefined();
    await t.svc.verifierIdentity.registrar.rotateCa(); // registrar mode: sandbox requests carry verifier_info
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('is set on create or on the draft, published with the revision, read back, and audited', async () => {
    const w1 = await a.api.gql(CREATE, {
      i: {
        name: 'Loan',
        steps: IDENTIFY,
        intendedUse: {
          purpose: '  Open a loan account  ',
          identifier: 'https://registrar.example/iu/loan-42',
        },
      },
    });
    expect(w1.errors).toBeUndefined();
    wf.W1 = w1.data?.createWorkflow.id;
    expect(w1.data?.createWorkflow.intendedUse).toEqual({
      purpose: 'Open a loan account',
      lang: 'en',
      identifier: 'https://registrar.example/iu/loan-42',
    });
    const w2 = await a.api.gql(CREATE, { i: { name: 'Age', steps: IDENTIFY } });
    wf.W2 = w2.data?.createWorkflow.id;
    expect(w2.data?.createWorkflow.intendedUse).toBeNull();
    const set = await a.api.gql(SET_USE, { id: wf.W2, u: { purpose: "Vérifier l'identité", lang: 'fr' } });
    expect(set.data?.setWorkflowIntendedUse.intendedUse).toEqual({
      purpose: "Vérifier l'identité",
      lang: 'fr',
      identifier: null,
    });
    for (const id of [wf.W1, wf.W2]) expect(errorOf(await a.api.gql(PUBLISH, { id }))).toBeUndefined();
    const read = await a.api.gql(READ, { id: wf.W2 });
    expect(read.data?.workflowRevisions).toEqual([
      { revision: 1, intendedUse: { purpose: "Vérifier l'identité", lang: 'fr', identifier: null } },
    ]);
    const audit = await t.svc.ds
      .getRepository(AccountAuditEntity)
      .findBy({ businessId: a.id, action: 'workflow.intended_use.set', target: wf.W2 });
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]?.detail ?? '{}')).toEqual({
      environment: 'sandbox',
      intendedUse: { purpose: "Vérifier l'identité", lang: 'fr' },
    });
  }, 120_000);

  it("puts the session's workflow's purpose in its registration certificate, else the business default", async () => {
    const base = { name: 'Acme Lending' };
    expect(await claimsOf(wf.W1)).toMatchObject({
      ...base,
      purpose: [{ lang: 'en', value: 'Open a loan account' }],
      intended_use_id: 'https://registrar.example/iu/loan-42',
    });
    expect(await claimsOf(wf.W2)).toMatchObject({
      ...base,
      purpose: [{ lang: 'fr', value: "Vérifier l'identité" }],
    });
    const w3 = await claimsOf(wf.W3);
    expect(w3).toMatchObject({ ...base, purpose: [{ lang: 'en', value: DEFAULT_PURPOSE }] });
    expect(w3.intended_use_id).toBeUndefined();
  }, 300_000);

  it('keeps a published revision as it was: a running session keeps its purpose, the next one gets the new', async () => {
    const before = await signedRequestOf(t.baseUrl, a.api, wf.W2);
    await a.api.gql(SET_USE, { id: wf.W2, u: { purpose: 'Altersprüfung vor der Lieferung', lang: 'de' } });
    // publishing an unchanged draft answers the latest revision; a changed intended use is a new revision
    expect((await a.api.gql(PUBLISH, { id: wf.W2 })).data?.publishWorkflow.revision).toBe(2);
    expect((await a.api.gql(PUBLISH, { id: wf.W2 })).data?.publishWorkflow.revision).toBe(2);
    const again = await crossDeviceRequest(before.signer);
    expect((await registrationClaims(again.payload)).claims.purpose).toEqual([
      { lang: 'fr', value: "Vérifier l'identité" },
    ]);
    expect((await claimsOf(wf.W2)).purpose).toEqual([
      { lang: 'de', value: 'Altersprüfung vor der Lieferung' },
    ]);
    const read = await a.api.gql(READ, { id: wf.W2 });
    expect(read.data?.workflowRevisions.map((r: Json) => r.intendedUse.lang)).toEqual(['fr', 'de']);
    // clearing it: the next revision falls back to the business default
    expect(errorOf(await a.api.gql(SET_USE, { id: wf.W2, u: null }))).toBeUndefined();
    expect((await a.api.gql(PUBLISH, { id: wf.W2 })).data?.publishWorkflow).toEqual({
      revision: 3,
      intendedUse: null,
    });
    expect((await claimsOf(wf.W2)).purpose).toEqual([{ lang: 'en', value: DEFAULT_PURPOSE }]);
  }, 300_000);

  it('refuses bad input with workflow_invalid naming the field, and writes nothing', async () => {
    const good = {
      purpose: 'Open a loan account',
      lang: 'en',
      identifier: 'https://registrar.example/iu/loan-42',
    };
    for (const [u, param] of [
      [{ purpose: '   ' }, 'intendedUse.purpose'],
      [{ purpose: 'x'.repeat(301) }, 'intendedUse.purpose'],
      [{ purpose: 'line one\nline two' }, 'intendedUse.purpose'],
      [{ purpose: 'ok', lang: 'es' }, 'intendedUse.lang'],
      [{ purpose: 'ok', identifier: 'has spaces in it' }, 'intendedUse.identifier'],
      [{ purpose: 'ok', identifier: `urn:${'a'.repeat(130)}` }, 'intendedUse.identifier'],
    ] as const) {
      expect(errorOf(await a.api.gql(SET_USE, { id: wf.W1, u }))).toMatchObject({
        code: 'workflow_invalid',
        param,
      });
      expect(errorOf(await a.api.gql(CREATE, { i: { name: 'Bad', intendedUse: u } }))).toMatchObject({
        code: 'workflow_invalid',
        param,
      });
    }
    // a purpose of exactly 300 characters (counted as characters, not bytes) is accepted
    const long = await a.api.gql(CREATE, { i: { name: 'Long', intendedUse: { purpose: 'ü'.repeat(300) } } });
    expect(long.errors).toBeUndefined();
    expect((await a.api.gql(READ, { id: wf.W1 })).data?.workflow.intendedUse).toEqual(good);
    const names = (await a.api.gql('{ workflows { name } }')).data?.workflows.map((w: Json) => w.name);
    expect(names).not.toContain('Bad');
  }, 120_000);

  it('is not readable or editable by another business, nor editable by a viewer', async () => {
    expect(errorOf(await b.api.gql(READ, { id: wf.W1 }))?.code).toBe('workflow_not_found');
    expect(errorOf(await b.api.gql(SET_USE, { id: wf.W1, u: { purpose: 'Hijack' } }))?.code).toBe(
      'workflow_not_found',
    );
    const user = await t.svc.accounts.members.createUserDirect(
      a.id,
      'viewer@intended-use.test',
      'viewer',
      'test',
    );
    const s = await t.svc.accounts.signIn.signInDirect(user.id);
    const viewer = new Api(t.baseUrl, undefined, {
      cookie: `svc_dashboard=${s.token}`,
      csrfToken: s.csrfToken,
      environment: 'sandbox',
    });
    expect((await viewer.gql(READ, { id: wf.W1 })).data?.workflow.intendedUse.purpose).toBe(
      'Open a loan account',
    );
    expect(errorOf(await viewer.gql(SET_USE, { id: wf.W1, u: { purpose: 'Changed' } }))?.code).toBe(
      'role_insufficient',
    );
    expect((await a.api.gql(READ, { id: wf.W1 })).data?.workflow.intendedUse.purpose).toBe(
      'Open a loan account',
    );
  }, 120_000);

  it("audits a change of a step's routes", async () => {
    const steps = [{ ...IDENTIFY[0], routes: ['rte_sandbox_reference'] }];
    const set = await a.api.gql(
      'mutation($id: ID!, $s: [WorkflowStepInput!]!) { setWorkflowSteps(workflowId: $id, steps: $s) { draftSteps { routes } } }',
      { id: wf.W1, s: steps },
    );
    expect(set.data?.setWorkflowSteps.draftSteps).toEqual([{ routes: ['rte_sandbox_reference'] }]);
    const rows = await t.svc.ds
      .getRepository(AccountAuditEntity)
      .findBy({ businessId: a.id, action: 'workflow.routes.set', target: wf.W1 });
    expect(rows.map((r) => JSON.parse(r.detail ?? '{}'))).toEqual([
      { environment: 'sandbox', routes: [['rte_sandbox_reference']] },
    ]);
  }, 120_000);
});
