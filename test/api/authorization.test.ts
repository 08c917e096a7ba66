// Every operation declares who may call it, and no business sees another's data.
// 1. Walks the live express app and fails on any route without an authorization decision: registry routes
//    carry `auth`; anything mounted outside the registry must be in ALLOWLIST below with a reason. Every
//    api_key route refuses an anonymous call with 401.
// 2. Reads the live GraphQL schema and fails on any Query/Mutation field without @Roles(rule) or @Public();
//    every authorized operation refuses an anonymous call with `unauthenticated`, and (roles) is refused with
//    `role_insufficient` to every role below its rule in each environment and allowed from it upwards, and an
//    API key gets `dashboard_user_required` unless the rule admits API keys (the session mirror, the catalog).
// 3. Tenant isolation over REST and GraphQL: another business (and the same business's other environment)
//    gets "not found" for sessions, workflows, webhook deliveries and audit records, never 403.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthDecision, isApiRoute } from '../../server/src/common/http';
import { decodeRule, ROLES, type Role, roleRank } from '../../server/src/common/roles';
import { operationDecisions } from '../../server/src/graphql/authorization';
import { declaredApi } from '../../server/src/tools/api-contract';
import {
  Api,
  createBusiness,
  type DashboardCredentials,
  type Json,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';
import { SignerClient, shareWithReferenceWallet } from '../support/signer';

/** Everything mounted outside the RouteRegistry, with the reason it needs no registry decision. */
const ALLOWLIST: Record<string, string> = {
  'GET /s/:id,/s/:id/return':
    'the hosted page shell (static HTML), also as the same-device redirect target (ADR 0050); the session id is the capability and all data goes through the signer routes',
  'GET /favicon.ico': 'the product icon (static bytes, issue 29); public by nature',
  'GET /verify':
    'the receipt verification page (static HTML, ADR 0047); the check runs in the browser against the public key set',
  'USE /assets': 'hashed static assets of the hosted page; public by nature',
  'GET /dashboard,/dashboard/*splat':
    'the dashboard app shell (static HTML, ADR 0017); all data goes through /auth and /graphql with their own decisions',
  'GET /': 'the start page (development) or product page (static HTML, no data, issue 20); public by nature',
  'GET /openapi.v1.json':
    'the committed OpenAPI contract (schema/openapi.v1.json), public like the repository',
  'USE /graphql': 'the GraphQL endpoint: each operation declares its decision (checked below)',
  'USE /sandbox': 'JSON body parser; answers only 400 invalid_json / 413 before any route runs',
  'USE /auth':
    'JSON body parser of the dashboard sign-in routes (registry routes); only 400 / 413 of its own',
  'USE /oid4vp':
    'body parser of the wallet routes (registry routes with their own decision); no answer of its own',
  'USE /dev/webhook-receiver':
    'raw body parser of the development receiver, whose routes are registry routes (sandbox)',
};
/** Global middleware (mounted at "/") never ends a request on a matched endpoint: context, headers, 404, errors. */
const GLOBAL = '/';

type Layer = {
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
  rawPath?: string | string[];
  name: string;
};

function mounted(stack: Layer[], prefix = ''): { key: string; global: boolean }[] {
  const out: { key: string; global: boolean }[] = [];
  for (const layer of stack) {
    const at = Array.isArray(layer.rawPath) ? layer.rawPath.join(',') : (layer.rawPath ?? GLOBAL);
    if (layer.route) {
      for (const m of Object.keys(layer.route.methods))
        out.push({ key: `${m.toUpperCase()} ${prefix}${layer.route.path}`, global: false });
    } else if (layer.handle.stack) {
      out.push(...mounted(layer.handle.stack, at === GLOBAL ? prefix : `${prefix}${at}`));
    } else {
      out.push({ key: `USE ${prefix}${at}`, global: at === GLOBAL && prefix === '' });
    }
  }
  return out;
}

describe('authorization', () => {
  let t: TestService;
  let anon: Api;

  beforeAll(async () => {
    t = await startTestService({ workers: false, label: 'authz' });
    anon = new Api(t.baseUrl);
  });
  afterAll(async () => t?.stop());

  describe('every REST route has an explicit decision', () => {
    it('finds a registry decision or an allowlisted reason for everything mounted on the app', () => {
      // /v1 is the pipeline's (app/pipeline.ts): its routes are the registry's ApiRoutes, never Express's
      const registry = new Map<string, AuthDecision>(
        t.svc.routes.routes
          .filter((r) => !isApiRoute(r))
          .map((r) => [`${r.method.toUpperCase()} ${r.path}`, r.auth]),
      );
      const decisions: AuthDecision[] = ['api_key', 'public', 'signer', 'sandbox', 'dashboard'];
      const all = mounted((t.svc.app as unknown as { router: { stack: Layer[] } }).router.stack);
      const undecided = all
        .filter((m) => !m.global)
        .filter((m) => {
          const auth = registry.get(m.key);
          return !(auth && decisions.includes(auth)) && !ALLOWLIST[m.key];
        })
        .map((m) => m.key);
      expect(
        undecided,
        'mounted without an authorization decision (RouteRegistry auth or ALLOWLIST)',
      ).toEqual([]);
      // the walk really sees the registry: every registry route is mounted, and nothing under /v1
      const keys = new Set(all.map((m) => m.key));
      expect(all.filter((m) => /^\S+ \/v1(\/|$|,)/i.test(m.key)).map((m) => m.key)).toEqual([]);
      const api = t.svc.routes.routes.filter(isApiRoute);
      expect(api.length).toBeGreaterThan(5);
      for (const r of api) expect(['api_key', 'signer'], `${r.method} ${r.path}`).toContain(r.auth);
      expect([...registry.keys()].filter((k) => !keys.has(k))).toEqual([]);
      expect(registry.size).toBeGreaterThan(5);
      // and no allowlist entry is stale
      expect(Object.keys(ALLOWLIST).filter((k) => !keys.has(k))).toEqual([]);
    });

    it('answers 401 unauthenticated on every api_key route called without a key', async () => {
      const apiKeyRoutes = t.svc.routes.routes.filter((r) => r.auth === 'api_key');
      expect(apiKeyRoutes.length).toBeGreaterThan(3);
      for (const r of apiKeyRoutes) {
        const p = r.path.replace(/:[A-Za-z0-9_]+/g, 'x');
        const res = await anon.rest(r.method.toUpperCase(), p, r.method === 'get' ? undefined : {});
        expect([`${r.method} ${r.path}`, res.status, res.body?.code]).toEqual([
          `${r.method} ${r.path}`,
          401,
          'unauthenticated',
        ]);
      }
    });
  });

  it('answers 401 unauthenticated on every dashboard route called without a session cookie', async () => {
    const dashboardRoutes = t.svc.routes.routes.filter((r) => r.auth === 'dashboard');
    expect(dashboardRoutes.length).toBeGreaterThan(2);
    for (const r of dashboardRoutes) {
      const res = await anon.rest(r.method.toUpperCase(), r.path, r.method === 'get' ? undefined : {});
      expect([`${r.method} ${r.path}`, res.status, res.body?.code]).toEqual([
        `${r.method} ${r.path}`,
        401,
        'unauthenticated',
      ]);
    }
  });

  describe('every GraphQL operation has an explicit decision', () => {
    type TypeRef = { kind: string; name: string | null; ofType: TypeRef | null };
    type Field = { name: string; type: TypeRef; args: { name: string; type: TypeRef }[] };
    let schema: Json;

    beforeAll(async () => {
      const typeRef =
        'kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } }';
      const res = await anon.gql(`{ __schema {
        queryType { fields { name type { ${typeRef} } args { name type { ${typeRef} } } } }
        mutationType { fields { name type { ${typeRef} } args { name type { ${typeRef} } } } }
        types { name kind enumValues { name } inputFields { name type { ${typeRef} } } } } }`);
      expect(res.errors).toBeUndefined();
      schema = res.data.__schema;
    });

    const live = (): { operation: 'Query' | 'Mutation'; field: Field }[] => [
      ...schema.queryType.fields.map((field: Field) => ({ operation: 'Query' as const, field })),
      ...(schema.mutationType?.fields ?? []).map((field: Field) => ({
        operation: 'Mutation' as const,
        field,
      })),
    ];

    it('finds @Authorized() or @Public(reason) on every Query and Mutation field', () => {
      const decisions = operationDecisions(declaredApi().resolvers);
      const decided = new Map(decisions.map((d) => [`${d.operation}.${d.field}`, d.decision]));
      const undecided = live()
        .map(({ operation, field }) => `${operation}.${field.name}`)
        .filter((k) => !decided.get(k));
      expect(undecided, 'GraphQL operations without @Authorized() or @Public(reason)').toEqual([]);
      expect(live().length).toBeGreaterThan(8);
      // every authorized operation declares its roles with @Roles(rule), not a bare @Authorized()
      const withoutRule = decisions
        .filter((d) => d.decision === 'authorized' && decodeRule(d.roles) === null)
        .map((d) => `${d.operation}.${d.field}`);
      expect(withoutRule, 'authorized operations without @Roles(rule)').toEqual([]);
    });

    /** The GraphQL type text of a type reference, e.g. [WorkflowStepInput!]!. */
    const typeText = (t: TypeRef): string =>
      t.kind === 'NON_NULL'
        ? `${typeText(t.ofType as TypeRef)}!`
        : t.kind === 'LIST'
          ? `[${typeText(t.ofType as TypeRef)}]`
          : (t.name as string);

    /** A syntactically valid value for a required argument, so that only authorization can refuse. */
    const sample = (t: TypeRef): unknown => {
      if (t.kind === 'NON_NULL') return sample(t.ofType as TypeRef);
      if (t.kind === 'LIST') return [];
      const named = schema.types.find((x: Json) => x.name === t.name);
      if (t.kind === 'ENUM') return named.enumValues[0].name;
      if (t.kind === 'INPUT_OBJECT')
        return Object.fromEntries(
          named.inputFields
            .filter((f: Json) => f.type.kind === 'NON_NULL')
            .map((f: Json) => [f.name, sample(f.type)]),
        );
      return { Int: 1, Float: 1, Boolean: true }[t.name as string] ?? 'x';
    };

    /** A call of the operation with sample arguments, so that only authorization can refuse. */
    const callOf = (operation: 'Query' | 'Mutation', field: Field) => {
      const required = field.args.filter((a) => a.type.kind === 'NON_NULL');
      const vars = required.map((a) => `$${a.name}: ${typeText(a.type)}`).join(', ');
      const args = required.map((a) => `${a.name}: $${a.name}`).join(', ');
      let result = field.type;
      while (result.ofType) result = result.ofType;
      const selection = result.kind === 'SCALAR' || result.kind === 'ENUM' ? '' : ' { __typename }';
      return {
        query: `${operation.toLowerCase()}${vars ? `(${vars})` : ''} { ${field.name}${args ? `(${args})` : ''}${selection} }`,
        variables: Object.fromEntries(required.map((a) => [a.name, sample(a.type)])),
      };
    };

    it("enforces each operation's roles per environment, and refuses API keys on dashboard operations", async () => {
      const biz = await createBusiness(t, 'Roles');
      const users: Record<Role, DashboardCredentials> = {} as never;
      for (const role of ROLES) {
        const u = await t.svc.accounts.members.createUserDirect(
          biz.businessId,
          `${role}@roles.test`,
          role,
          'authz-test',
        );
        const s = await t.svc.accounts.signIn.signInDirect(u.id);
        users[role] = { cookie: `svc_dashboard=${s.token}`, csrfToken: s.csrfToken, environment: 'sandbox' };
      }
      const keyOnly = new Api(t.baseUrl, biz.apiKey, null);
      const rules = new Map(
        operationDecisions(declaredApi().resolvers)
          .filter((d) => d.decision === 'authorized')
          .map((d) => [`${d.operation}.${d.field}`, decodeRule(d.roles)]),
      );
      const AUTH_CODES = ['unauthenticated', 'role_insufficient', 'dashboard_user_required'];
      let checked = 0;
      for (const { operation, field } of live()) {
        const rule = rules.get(`${operation}.${field.name}`);
        if (!rule) continue;
        const { query, variables } = callOf(operation, field);
        for (const environment of ['sandbox', 'production'] as const) {
          for (const role of ROLES) {
            const api = new Api(t.baseUrl, undefined, { ...users[role], environment });
            const code = (await api.gql(query, variables)).errors?.[0]?.extensions?.code;
            const allowed = roleRank(role) >= roleRank(rule[environment]);
            const label = `${operation}.${field.name} as ${role} in ${environment}`;
            if (allowed)
              expect([label, AUTH_CODES.includes(code) ? code : 'allowed']).toEqual([label, 'allowed']);
            else expect([label, code]).toEqual([label, 'role_insufficient']);
            checked++;
          }
        }
        const code = (await keyOnly.gql(query, variables)).errors?.[0]?.extensions?.code;
        const label = `${operation}.${field.name} with an API key`;
        if (rule.apiKey)
          expect([label, AUTH_CODES.includes(code) ? code : 'allowed']).toEqual([label, 'allowed']);
        else expect([label, code]).toEqual([label, 'dashboard_user_required']);
      }
      expect(checked).toBeGreaterThan(100);
    });

    it('refuses every @Authorized() operation without an API key', async () => {
      const decisions = operationDecisions(declaredApi().resolvers);
      const authorized = new Set(
        decisions.filter((d) => d.decision === 'authorized').map((d) => `${d.operation}.${d.field}`),
      );
      for (const { operation, field } of live()) {
        if (!authorized.has(`${operation}.${field.name}`)) continue;
        const required = field.args.filter((a) => a.type.kind === 'NON_NULL');
        const vars = required.map((a) => `$${a.name}: ${typeText(a.type)}`).join(', ');
        const args = required.map((a) => `${a.name}: $${a.name}`).join(', ');
        let result = field.type;
        while (result.ofType) result = result.ofType;
        const selection = result.kind === 'SCALAR' || result.kind === 'ENUM' ? '' : ' { __typename }';
        const query = `${operation.toLowerCase()}${vars ? `(${vars})` : ''} { ${field.name}${args ? `(${args})` : ''}${selection} }`;
        const res = await anon.gql(query, Object.fromEntries(required.map((a) => [a.name, sample(a.type)])));
        expect([`${operation}.${field.name}`, res.errors?.[0]?.extensions?.code]).toEqual([
          `${operation}.${field.name}`,
          'unauthenticated',
        ]);
      }
    });

    it('refuses every signer operation (receipts) from a browser that is not the bound one', async () => {
      const { apiKey } = await createBusiness(t, 'Signer ops');
      const biz = new Api(t.baseUrl, apiKey);
      const { workflowId } = await setUpIdentifyWorkflow(biz, 'http://127.0.0.1:9/h');
      const created = await biz.rest('POST', '/v1/sessions', { workflow_id: workflowId });
      const signer = new SignerClient(t.baseUrl, created.body.id);
      expect((await signer.start()).status).toBe(200);
      const decisions = operationDecisions(declaredApi().resolvers);
      const signerOps = decisions.filter((d) => d.decision?.startsWith('signer:'));
      expect(signerOps.length).toBeGreaterThanOrEqual(4);
      for (const op of signerOps) {
        const field = live().find((l) => l.operation === op.operation && l.field.name === op.field)?.field;
        if (!field) throw new Error(`${op.field} is not in the live schema`);
        const required = field.args.filter((a) => a.type.kind === 'NON_NULL');
        const vars = required.map((a) => `$${a.name}: ${typeText(a.type)}`).join(', ');
        const args = required.map((a) => `${a.name}: $${a.name}`).join(', ');
        const query = `${op.operation.toLowerCase()}(${vars}) { ${field.name}(${args}) { __typename } }`;
        const values = Object.fromEntries(
          required.map((a) => [
            a.name,
            a.name === 'sessionId'
              ? created.body.id
              : a.name === 'email'
                ? 'a@example.org'
                : a.name === 'code'
                  ? '123456'
                  : sample(a.type),
          ]),
        );
        // the anonymous client has no binding cookie; a business API key is no substitute for it. The signer
        // page's session read answers a browser without the cookie as it answers an unknown link (ADR 0041).
        const refusal = op.field === 'signerSession' ? 'not_found' : 'session_bound_elsewhere';
        for (const client of [anon, biz]) {
          const res = await client.gql(query, values);
          expect([`${op.operation}.${op.field}`, res.errors?.[0]?.extensions?.code]).toEqual([
            `${op.operation}.${op.field}`,
            refusal,
          ]);
        }
      }
    });
  });

  describe('tenant isolation', () => {
    let a: Api;
    let aProduction: Api;
    let b: Api;
    let workflowId: string;
    let sessionId: string;
    let deliveryId: string;
    const seen: { status: number; code?: string }[] = [];

    const rest = async (api: Api, method: string, path: string, body?: unknown) => {
      const res = await api.rest(method, path, body);
      seen.push({ status: res.status, code: res.body?.code });
      return res;
    };
    const gql = async (api: Api, query: string, variables: Record<string, unknown> = {}) => {
      const res = await api.gql(query, variables);
      for (const e of res.errors ?? []) seen.push({ status: e.extensions?.status, code: e.extensions?.code });
      return res;
    };
    const gqlCode = (res: { errors?: Json[] }) => res.errors?.[0]?.extensions?.code;

    beforeAll(async () => {
      const alpha = await createBusiness(t, 'Alpha');
      a = new Api(t.baseUrl, alpha.apiKey);
      aProduction = new Api(t.baseUrl, (await t.svc.tenancy.issueApiKey(alpha.businessId, 'production')).key);
      b = new Api(t.baseUrl, (await createBusiness(t, 'Beta')).apiKey);
      workflowId = (await setUpIdentifyWorkflow(a, 'http://127.0.0.1:9/alpha')).workflowId;
      await setUpIdentifyWorkflow(b, 'http://127.0.0.1:9/beta');
      // Alpha's session completes its step: a result, an audit record and queued webhook deliveries exist
      sessionId = (await a.rest('POST', '/v1/sessions', { workflow_id: workflowId })).body.id;
      const signer = new SignerClient(t.baseUrl, sessionId);
      expect((await signer.start()).status).toBe(200);
      expect((await shareWithReferenceWallet(t.svc, signer)).status).toBe(200);
      const deliveries = await a.gql('query($s: ID) { webhookDeliveries(sessionId: $s) { id event } }', {
        s: sessionId,
      });
      expect(deliveries.data.webhookDeliveries.map((d: Json) => d.event).sort()).toEqual([
        'session.completed',
        'step.completed',
      ]);
      deliveryId = deliveries.data.webhookDeliveries[0].id;
    });

    it('the owner sees its session, audit record, workflow and deliveries', async () => {
      expect((await a.rest('GET', `/v1/sessions/${sessionId}`)).body.status).toBe('completed');
      expect((await a.rest('GET', `/v1/audits/${sessionId}_0`)).status).toBe(200);
      expect(
        (await a.gql('query($id: ID!) { session(id: $id) { status } }', { id: sessionId })).data.session
          .status,
      ).toBe('completed');
      // the dashboard user (the owner, in sandbox) reads the audit record over GraphQL too
      const audit = await a.gql('query($id: ID!) { auditRecord(id: $id) { auditId record } }', {
        id: `${sessionId}_0`,
      });
      expect(audit.data.auditRecord.record.session_id).toBe(sessionId);
      expect((await a.gql('{ workflows { id } }')).data.workflows.map((w: Json) => w.id)).toContain(
        workflowId,
      );
    });

    for (const who of ['another business', "the same business's production key"] as const) {
      it(`${who}: REST answers 404 for sessions, audits and workflows`, async () => {
        const other = who === 'another business' ? b : aProduction;
        expect((await rest(other, 'GET', `/v1/sessions/${sessionId}`)).body.code).toBe('not_found');
        expect((await rest(other, 'POST', `/v1/sessions/${sessionId}/continue`)).body.code).toBe('not_found');
        expect((await rest(other, 'POST', `/v1/sessions/${sessionId}/stop`)).body.code).toBe('not_found');
        expect((await rest(other, 'GET', `/v1/audits/${sessionId}_0`)).body.code).toBe('not_found');
        if (other === b) {
          const create = await rest(b, 'POST', '/v1/sessions', { workflow_id: workflowId });
          expect([create.status, create.body.code]).toEqual([404, 'workflow_not_found']);
        }
      });

      it(`${who}: GraphQL answers not_found for sessions, audit records and deliveries`, async () => {
        const other = who === 'another business' ? b : aProduction;
        const id = { id: sessionId };
        expect(gqlCode(await gql(other, 'query($id: ID!) { session(id: $id) { id } }', id))).toBe(
          'not_found',
        );
        expect(gqlCode(await gql(other, 'mutation($id: ID!) { stopSession(id: $id) { id } }', id))).toBe(
          'not_found',
        );
        expect(gqlCode(await gql(other, 'mutation($id: ID!) { continueSession(id: $id) { id } }', id))).toBe(
          'not_found',
        );
        // the audit record: another business's dashboard user, and the same business's in production
        expect(
          gqlCode(
            await gql(other, 'query($id: ID!) { auditRecord(id: $id) { record } }', { id: `${sessionId}_0` }),
          ),
        ).toBe('not_found');
        const ds = await gql(other, 'query($s: ID) { webhookDeliveries(sessionId: $s) { id } }', {
          s: sessionId,
        });
        expect(ds.data.webhookDeliveries).toEqual([]);
        const all = await gql(other, '{ webhookDeliveries { deliveryId } }');
        expect(all.data.webhookDeliveries.filter((d: Json) => d.deliveryId.startsWith(sessionId))).toEqual(
          [],
        );
        expect(
          gqlCode(await gql(other, 'mutation($id: ID!) { redeliverWebhook(id: $id) }', { id: deliveryId })),
        ).toBe('not_found');
        const endpoint = await gql(other, '{ webhookEndpoint { url } }');
        expect(endpoint.data.webhookEndpoint?.url ?? null).not.toBe('http://127.0.0.1:9/alpha');
      });
    }

    it('another business: GraphQL answers workflow_not_found for every workflow operation', async () => {
      const wf = { id: workflowId };
      expect((await gql(b, '{ workflows { id } }')).data.workflows.map((w: Json) => w.id)).not.toContain(
        workflowId,
      );
      expect(gqlCode(await gql(b, 'query($id: ID!) { workflow(id: $id) { id } }', wf))).toBe(
        'workflow_not_found',
      );
      expect(
        gqlCode(await gql(b, 'query($id: ID!) { workflowRevisions(workflowId: $id) { revision } }', wf)),
      ).toBe('workflow_not_found');
      expect(
        gqlCode(
          await gql(
            b,
            'mutation($id: ID!) { setWorkflowSteps(workflowId: $id, steps: [{ primitive: identify, claims: ["given_name"] }]) { id } }',
            wf,
          ),
        ),
      ).toBe('workflow_not_found');
      expect(
        gqlCode(await gql(b, 'mutation($id: ID!) { publishWorkflow(workflowId: $id) { revision } }', wf)),
      ).toBe('workflow_not_found');
      expect(
        gqlCode(
          await gql(b, 'mutation($w: ID!) { createSession(input: { workflowId: $w }) { id } }', {
            w: workflowId,
          }),
        ),
      ).toBe('workflow_not_found');
    });

    it('never answers 403 across tenants', () => {
      expect(seen.length).toBeGreaterThan(15);
      expect(seen.filter((s) => s.status === 403 || s.code === 'forbidden')).toEqual([]);
      expect(seen.every((s) => s.status === 404 || s.status === 200)).toBe(true);
    });
  });
});
