// A create sees the configuration as committed, on every request: after a new revision is published, a route
// acceptance is withdrawn or an API key is revoked, the very next create answers accordingly. (The create path
// remembers the last revision it pinned and checks it, with the endpoint and the catalog version, inside its
// INSERT: these are the cases where that guess is wrong and the create must fall back to reading the
// configuration.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transactionWithRetry } from '../../server/src/db/data-source';
import { SessionEntity } from '../../server/src/modules/session/session.entity';
import { SessionEventEntity } from '../../server/src/modules/timeline/session-event.entity';
import {
  Api,
  createBusiness,
  sessionsHoldingAKey,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';

describe('create follows configuration changes at once (MariaDB)', () => {
  let t: TestService;
  let production: Api;
  let businessId: string;
  let keyId: string;
  let workflowId: string;
  const ROUTE = 'rte_google_us_mdl';

  const create = () => production.rest('POST', '/v1/sessions', { workflow_id: workflowId });
  const stored = () =>
    t.svc.ds.getRepository(SessionEntity).countBy({ businessId, environment: 'production' });

  beforeAll(async () => {
    t = await startTestService({ workers: false, label: 'createcfg' });
    businessId = (await createBusiness(t)).businessId;
    const key = await t.svc.tenancy.issueApiKey(businessId, 'production');
    keyId = key.id;
    production = new Api(t.baseUrl, key.key);
    // a public https IP literal passes the production webhook rules without DNS; workers are off
    ({ workflowId } = await setUpIdentifyWorkflow(production, 'https://8.8.8.8/hooks', ['given_name']));
    await t.svc.catalog.setAcceptance(ROUTE, { provider: true, issuer: true, service: true });
  }, 60_000);

  afterAll(async () => {
    await t?.stop();
  });

  it('refuses as soon as a route acceptance is withdrawn, and creates again once restored', async () => {
    for (let i = 0; i < 3; i++) expect((await create()).body).toMatchObject({ workflow_revision: 1 });
    await t.svc.catalog.setAcceptance(ROUTE, { service: false });
    const refused = await create();
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('route_unavailable');
    expect(await stored()).toBe(3);
    await t.svc.catalog.setAcceptance(ROUTE, { service: true });
    expect((await create()).status).toBe(201);
    expect(await stored()).toBe(4);
  });

  it('pins the newly published revision on the next create', async () => {
    const gql = async (query: string, variables: Record<string, unknown>) => {
      const r = await production.gql(query, variables);
      expect(r.errors).toBeUndefined();
    };
    const publish = async (steps: unknown[]) => {
      await gql(
        'mutation($id: ID!, $steps: [WorkflowStepInput!]!) { setWorkflowSteps(workflowId: $id, steps: $steps) { id } }',
        {
          id: workflowId,
          steps,
        },
      );
      await gql('mutation($id: ID!) { publishWorkflow(workflowId: $id) { revision } }', { id: workflowId });
    };
    expect((await create()).body.workflow_revision).toBe(1);
    // revision 2 has a sign step: a JSON create is refused for want of documents, not pinned to revision 1
    await publish([{ primitive: 'sign', documents: 1 }]);
    const refused = await create();
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('documents_required');
    // revision 3: age verification, pinned at once
    await publish([{ primitive: 'age_verify', threshold: 18 }]);
    const created = await create();
    expect(created.status).toBe(201);
    expect(created.body.workflow_revision).toBe(3);
    expect((await production.rest('GET', `/v1/sessions/${created.body.id}`)).body.workflow_revision).toBe(3);
  });

  it('a create sent in one round trip writes the session and its key together, or nothing; the timeline starts with created', async () => {
    const keys = () => sessionsHoldingAKey(t, businessId);
    const storedTimelineRows = () => t.svc.ds.getRepository(SessionEventEntity).countBy({ businessId });
    const plain = await create(); // the process has pinned the workflow's revision: one statement from here
    expect(plain.status).toBe(201);
    const [s0, k0, e0] = [await stored(), await keys(), await storedTimelineRows()];
    const withKey = (k: string) =>
      production.rest('POST', '/v1/sessions', { workflow_id: workflowId }, { 'Idempotency-Key': k });
    const first = await withKey('one-trip-1');
    expect(first.status).toBe(201);
    const again = await withKey('one-trip-1');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect([await stored(), await keys()]).toEqual([s0 + 1, k0 + 1]);
    // the support timeline shows each session's creation, at the session's own creation time
    const ctx = {
      actor: { kind: 'api_key' as const, apiKeyId: keyId, businessId, environment: 'production' as const },
      requestId: 'test',
      clock: t.svc.clock,
    };
    for (const r of [plain, first]) {
      const { session, entries } = await t.svc.support.timeline(ctx, String(r.body.id));
      expect(entries.map((e) => e.kind)).toEqual(['created']);
      expect(entries[0]?.at.toISOString()).toBe(session.createdAt.toISOString());
    }
    // derived from the session row: a create writes no timeline row of its own
    expect(await storedTimelineRows()).toBe(e0);
    // configuration changed under the known revision: refused, and no session or reservation is left
    await t.svc.catalog.setAcceptance(ROUTE, { service: false });
    const refused = await withKey('one-trip-2');
    expect(refused.body.code).toBe('route_unavailable');
    const refusedPlain = await create();
    expect(refusedPlain.body.code).toBe('route_unavailable');
    expect([await stored(), await keys()]).toEqual([s0 + 1, k0 + 1]);
    await t.svc.catalog.setAcceptance(ROUTE, { service: true });
    // the refusal did not take the key: the same key now creates
    const later = await withKey('one-trip-2');
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect([await stored(), await keys()]).toEqual([s0 + 2, k0 + 2]);
  });

  it('a catalog change committed by another node refuses the next create here, and its undoing creates again', async () => {
    expect((await create()).status).toBe(201); // this process remembers the revision and the catalog version
    const s0 = await stored();
    // what any node's CatalogService commits: the route's change and the version bump in one transaction
    const otherNode = (accepted: boolean) =>
      transactionWithRetry(t.svc.ds, async (m) => {
        await m.query('UPDATE catalog_version SET version = version + 1 WHERE id = 1');
        await m.query(
          'UPDATE credential_route SET service_accepted = ?, production_available = ? WHERE id = ?',
          [accepted, accepted, ROUTE],
        );
      });
    await otherNode(false);
    const refused = await create();
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('route_unavailable');
    expect(await stored()).toBe(s0);
    await otherNode(true);
    expect((await create()).status).toBe(201);
    expect((await create()).status).toBe(201);
    expect(await stored()).toBe(s0 + 2);
  });

  it('a key without the create scope is refused 403, and 401 once revoked: the key is confirmed before any refusal', async () => {
    const scoped = await t.svc.tenancy.issueApiKey(businessId, 'production', 'reader', {
      scopes: ['sessions:read'],
    });
    const reader = new Api(t.baseUrl, scoped.key);
    const s0 = await stored();
    for (let i = 0; i < 2; i++) {
      const r = await reader.rest('POST', '/v1/sessions', { workflow_id: workflowId });
      expect([r.status, r.body.code]).toEqual([403, 'api_key_scope_missing']);
    }
    await t.svc.tenancy.revokeApiKey(businessId, scoped.id);
    const r = await reader.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect([r.status, r.body.code]).toEqual([401, 'unauthenticated']);
    expect(await stored()).toBe(s0);
  });

  it('a revoked API key is refused on the very next request, with or without an Idempotency-Key', async () => {
    // two keys, each remembered by this process; each is revoked and then sent once more, first of all
    const other = await t.svc.tenancy.issueApiKey(businessId, 'production', 'second');
    const second = new Api(t.baseUrl, other.key);
    const repeat = () =>
      second.rest(
        'POST',
        '/v1/sessions',
        { workflow_id: workflowId },
        { 'Idempotency-Key': 'before-revoke' },
      );
    expect((await create()).status).toBe(201);
    expect((await repeat()).status).toBe(201);
    expect((await repeat()).headers.get('idempotent-replayed')).toBe('true');
    const s0 = await stored();
    await t.svc.tenancy.revokeApiKey(businessId, keyId);
    await t.svc.tenancy.revokeApiKey(businessId, other.id);
    // the plain create is refused by its INSERT's key check; the repeat is not replayed to a revoked key
    const afterwards = [
      await create(),
      await repeat(),
      await production.rest(
        'POST',
        '/v1/sessions',
        { workflow_id: workflowId },
        { 'Idempotency-Key': 'new' },
      ),
    ];
    for (const res of afterwards) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('unauthenticated');
    }
    expect(await stored()).toBe(s0);
  });
});
