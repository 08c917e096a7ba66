// The committed contracts are the code's: schema/ and the README endpoint table equal what the code generates,
// the live server serves the committed GraphQL schema, the OpenAPI file covers every /v1 route, and real
// answers, errors and webhook bodies match the schemas the contracts are emitted from.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { ERROR_CODES } from '../../server/src/common/errors';
import { isApiRoute, type RouteDef, RouteRegistry } from '../../server/src/common/http';
import { AuditRecordSchema, JwksSchema } from '../../server/src/modules/audit/audit.contract';
import { ProblemSchema } from '../../server/src/modules/errors/problem.contract';
import { SessionCreatedSchema, SessionSchema } from '../../server/src/modules/session/session.contract';
import {
  TransportAckSchema,
  UnsignedWalletRequestSchema,
} from '../../server/src/modules/signer/signer.contract';
import { registerSignerRoutes } from '../../server/src/modules/signer/signer.rest';
import { WebhookEventEntity } from '../../server/src/modules/webhook/webhook-event.entity';
import {
  type ContractSchema,
  declaredApi,
  generateContracts,
  INTROSPECTION_QUERY,
  README_END,
  README_START,
  readmeEndpointTable,
  SDL_HEADER,
  sdlFromIntrospection,
} from '../../server/src/tools/api-contract';

import { Api, type Json, type TestService } from '../support/harness';
import { identifyFixture } from '../support/page-fixture';
import { SignerClient, shareWithReferenceWallet } from '../support/signer';

/** The webhook payloads the service declares (RouteRegistry.addEvent), as the generator reads them. */
const WEBHOOK_EVENT_SCHEMAS = declaredApi().routes.events;

const root = path.resolve(import.meta.dirname, '../..');
const committed = (rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');
const openapi = () => JSON.parse(committed('schema/openapi.v1.json'));

/** Parses with a zod schema and reports the issues readably when it does not match. */
function conforms(schema: ContractSchema, value: unknown, what: string): void {
  const r = schema.safeParse(value);
  expect(
    r.success
      ? []
      : r.error.issues.map(
          (i: { path: PropertyKey[]; message: string }) => `${what}: ${i.path.join('.')}: ${i.message}`,
        ),
  ).toEqual([]);
}

describe('generated contracts', () => {
  it('are committed exactly as the code generates them (pnpm schema:generate)', async () => {
    const { files, routes } = await generateContracts();
    for (const [rel, content] of Object.entries(files)) expect(committed(rel), rel).toBe(content);
    const readme = committed('README.md');
    const table = readme.slice(readme.indexOf(README_START), readme.indexOf(README_END) + README_END.length);
    expect(table).toBe(readmeEndpointTable(routes));
  });

  it('declare the closed list of error codes in the problem schema', () => {
    const problem = openapi().components.schemas.Problem;
    expect(problem.properties.code.enum).toEqual(Object.keys(ERROR_CODES));
    expect(problem.required).toEqual(['type', 'title', 'status', 'detail', 'code', 'request_id']);
  });
});

describe('contracts against the running service', () => {
  const clock = new ManualClock(Date.parse('2030-01-01T10:00:00.000Z'));
  const page = identifyFixture({ clock, workers: false, label: 'contracts' });
  let t: TestService;
  let api: Api;
  let workflowId: string;
  beforeAll(() => ({ t, api, workflowId } = page));

  it('serves the committed GraphQL schema', async () => {
    const res = await new Api(t.baseUrl).gql(INTROSPECTION_QUERY);
    expect(SDL_HEADER + sdlFromIntrospection(res.data)).toBe(committed('schema/schema.graphql'));
  });

  it('documents every /v1 route, the audit JWKS and the error reference with its authorization', () => {
    const doc = openapi();
    const v1 = t.svc.routes.routes.filter(
      (r) =>
        r.path.startsWith('/v1/') || r.path.startsWith('/.well-known/') || /^\/errors(\/|$)/.test(r.path),
    );
    expect(v1.length).toBeGreaterThan(4);
    for (const r of v1) {
      const op = doc.paths[r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')]?.[r.method];
      expect(op, `${r.method} ${r.path}`).toBeDefined();
      expect(op.security).toEqual(r.auth === 'api_key' ? [{ apiKey: [] }] : []);
      expect(op['x-auth']).toBe(r.auth);
    }
    const ops = Object.values(doc.paths).flatMap((p) => Object.values(p as Json));
    expect(ops).toHaveLength(v1.length);
  });

  it('declares every /t route in signer.rest.ts, answered by the pipeline as a signer route (ADR 0056)', () => {
    const own = new RouteRegistry();
    const none = {} as never;
    registerSignerRoutes(own, { transport: none, redirects: none, receipts: none, pageReads: none });
    const key = (r: RouteDef) => `${r.method} ${r.path}`;
    const t_ = t.svc.routes.routes.filter((r) => /^\/t\//i.test(r.path));
    expect(t_.map(key).sort()).toEqual(own.routes.map(key).sort());
    for (const r of t_) expect([key(r), isApiRoute(r) && r.auth]).toEqual([key(r), 'signer']);
  });

  it('gives every /t route answering JSON a contract (the page types and contract:check follow it)', () => {
    const bare = t.svc.routes.routes
      .filter((r) => r.path.startsWith('/t/') && !r.contract)
      .map((r) => r.path);
    // the three byte downloads (documents, originals, the receipt PDF) answer files, not JSON
    expect(bare.sort()).toEqual([
      '/t/sessions/:id/documents/:position',
      '/t/sessions/:id/originals/:position',
      '/t/sessions/:id/receipt.pdf',
    ]);
  });

  it('refuses a /t body its contract refuses with validation_failed naming the field, before anything else', async () => {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const signer = new SignerClient(t.baseUrl, created.body.id);
    expect((await signer.start()).status).toBe(200);
    for (const body of [{ response: {} }, { request_id: 7, response: {} }]) {
      const res = await signer.call('POST', '/wallet-response', body);
      expect([res.status, res.body.code, res.body.param], JSON.stringify(body)).toEqual([
        400,
        'validation_failed',
        'request_id',
      ]);
      conforms(ProblemSchema, res.body, 'POST /t/sessions/{id}/wallet-response');
    }
    // nothing was consumed: the step still takes an answer
    expect((await shareWithReferenceWallet(t.svc, signer)).body).toEqual({
      status: 'completed',
      current_stage: 1,
    });
  });

  /** The documented error codes of an operation for one status. */
  const documented = (method: string, p: string, status: number): string[] =>
    openapi().paths[p][method].responses[String(status)]?.content['application/problem+json'].schema.allOf[1]
      .properties.code.enum ?? [];

  it('answers exactly the documented shapes: sessions, audit records, the JWKS and problems', async () => {
    const created = await api.rest('POST', '/v1/sessions', {
      workflow_id: workflowId,
      metadata: { ref: 'x' },
    });
    expect(created.status).toBe(201);
    conforms(SessionCreatedSchema, created.body, 'POST /v1/sessions');

    const id = created.body.id as string;
    const signer = new SignerClient(t.baseUrl, id);
    const started = await signer.start();
    expect(started.status).toBe(200);
    conforms(TransportAckSchema, started.body, 'POST /t/sessions/{id}/start');
    const wr = await signer.walletRequest();
    conforms(UnsignedWalletRequestSchema, wr.body, 'POST /t/sessions/{id}/wallet-request');
    const response = await t.svc.wallet.respond({
      persona: 'adult',
      request: wr.body.request,
      origin: t.baseUrl,
    });
    const done = await signer.submit(wr.body.request_id, response);
    expect(done.body).toEqual({ status: 'completed', current_stage: 1 }); // past its one step
    conforms(TransportAckSchema, done.body, 'POST /t/sessions/{id}/wallet-response');

    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('completed');
    expect(read.body.results).toHaveLength(1);
    conforms(SessionSchema, read.body, 'GET /v1/sessions/{id}');
    conforms(AuditRecordSchema, (await api.rest('GET', `/v1/audits/${id}_0`)).body, 'GET /v1/audits/{id}');
    conforms(JwksSchema, (await api.rest('GET', '/.well-known/service-audit-jwks.json')).body, 'JWKS');

    const stopped = await api.rest(
      'POST',
      `/v1/sessions/${(await api.rest('POST', '/v1/sessions', { workflow_id: workflowId })).body.id}/stop`,
    );
    conforms(SessionSchema, stopped.body, 'POST /v1/sessions/{id}/stop');

    const problems: [string, string, { status: number; body: Json }][] = [
      ['post', '/v1/sessions', await api.rest('POST', '/v1/sessions', { workflow_id: 'wf_nope' })],
      [
        'post',
        '/v1/sessions',
        await api.rest('POST', '/v1/sessions', { workflow_id: workflowId, expires_in: 1 }),
      ],
      ['get', '/v1/sessions/{id}', await api.rest('GET', '/v1/sessions/sess_nope')],
      ['get', '/v1/sessions/{id}', await new Api(t.baseUrl).rest('GET', '/v1/sessions/sess_nope')],
      ['post', '/v1/sessions/{id}/continue', await api.rest('POST', `/v1/sessions/${id}/continue`)],
      ['post', '/v1/sessions/{id}/stop', await api.rest('POST', `/v1/sessions/${id}/stop`)],
      ['get', '/v1/audits/{id}', await api.rest('GET', '/v1/audits/nope')],
    ];
    for (const [method, p, res] of problems) {
      conforms(ProblemSchema, res.body, `${method} ${p} ${res.status}`);
      expect(documented(method, p, res.status), `${method} ${p} ${res.status}`).toContain(res.body.code);
    }
  });

  it('sends webhook bodies that match schema/webhooks', async () => {
    const expiring = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId, expires_in: 60 });
    clock.advance(61_000);
    expect((await api.rest('GET', `/v1/sessions/${expiring.body.id}`)).body.status).toBe('expired');

    const events = await t.svc.ds.getRepository(WebhookEventEntity).find();
    const names = new Set(events.map((e) => e.event));
    for (const e of ['step.completed', 'session.completed', 'session.stopped', 'session.expired'])
      expect(names).toContain(e);
    for (const e of events) {
      const schema = WEBHOOK_EVENT_SCHEMAS[e.event];
      expect(schema, `a schema for ${e.event}`).toBeDefined();
      conforms(schema as ContractSchema, JSON.parse(e.body), e.event);
      expect(fs.existsSync(path.join(root, `schema/webhooks/${e.event}.schema.json`))).toBe(true);
    }
  });
});
