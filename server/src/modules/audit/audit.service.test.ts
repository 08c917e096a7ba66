import { spawn, spawnSync } from 'node:child_process';
import { createHash, createPublicKey, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type RequestHandler } from 'express';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPipeline } from '../../app/pipeline';
import { type MigratedTestDatabase, migratedTestDatabase } from '../../app/test-database';
import { ManualClock } from '../../common/clock';
import { AppError } from '../../common/errors';
import { errorHandler, isPipelinePath, RouteRegistry, requestContext } from '../../common/http';
import { createLogger } from '../../common/logger';
import type { Environment } from '../../config/config';
import { transactionWithRetry } from '../../db/data-source';
import type { AuditJwk } from '../kms/kms';
import { LocalKmsProvider } from '../kms/local-kms.provider';
import { registerAuditRoutes } from './audit.rest';
import { type AuditRecordView, AuditService, type AuditStepInput } from './audit.service';
import { canonicalJson } from './canonical-json';
import { verifyAuditRecord } from './verify';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-test-'));
const OPENSSL = '/usr/bin/openssl';

/** The documented openssl recipe, step by step, with only standard tools after fetching the two JSON bodies. */
function opensslVerifies(view: AuditRecordView, jwks: { keys: AuditJwk[] }): boolean {
  const dir = fs.mkdtempSync(path.join(tmp, 'ossl-'));
  const jwk = jwks.keys.find((k) => k.kid === view.service_signature.kid);
  if (!jwk) return false;
  fs.writeFileSync(
    path.join(dir, 'key.pem'),
    createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }),
  );
  const { service_signature, ...content } = view;
  fs.writeFileSync(path.join(dir, 'record.json'), canonicalJson(content));
  const dgst = spawnSync(OPENSSL, ['dgst', '-sha256', '-binary', '-out', 'digest.bin', 'record.json'], {
    cwd: dir,
  });
  expect(dgst.status).toBe(0);
  fs.writeFileSync(path.join(dir, 'sig.der'), Buffer.from(service_signature.value, 'base64url'));
  const args = [
    'pkeyutl',
    '-verify',
    '-pubin',
    '-inkey',
    'key.pem',
    '-in',
    'digest.bin',
    '-sigfile',
    'sig.der',
  ];
  return spawnSync(OPENSSL, args, { cwd: dir }).status === 0;
}

describe('audit records', () => {
  let db: MigratedTestDatabase;
  let ds: DataSource;
  let kms: LocalKmsProvider;
  let audit: AuditService;
  let server: http.Server;
  let base: string;
  const clock = new ManualClock(new Date('2026-03-01T10:00:00Z'));
  // Stand-in for the lead's API-key middleware: a bearer token names the tenant.
  const tenants: Record<string, { businessId: string; environment: Environment }> = {
    'key-a': { businessId: 'biz_a', environment: 'sandbox' },
    'key-a-live': { businessId: 'biz_a', environment: 'production' },
    'key-b': { businessId: 'biz_b', environment: 'sandbox' },
  };
  const authorize = async (req: http.IncomingMessage) => {
    const t = tenants[(req.headers.authorization ?? '').replace(/^Bearer /, '')];
    if (!t) throw new AppError('unauthenticated');
    return { actor: { kind: 'api_key' as const, apiKeyId: 'k', ...t }, rows: [] };
  };
  const pass: RequestHandler = (_req, _res, next) => next();

  const step = (sessionId: string, stage: number, over: Partial<AuditStepInput> = {}): AuditStepInput => ({
    sessionId,
    businessId: 'biz_a',
    environment: 'sandbox',
    workflowId: 'wf_1',
    workflowRevision: 3,
    stage,
    primitive: stage === 0 ? 'identify' : 'age_verify',
    result:
      stage === 0
        ? { claims: { given_name: 'Erika', birth_date: '1990-01-01' } }
        : { over: true, threshold: 18 },
    verification: {
      format: 'dc+sd-jwt',
      issuer: 'https://issuer.example',
      status: 'valid',
      checks: ['signature'],
    },
    completedAt: clock.now(),
    ...over,
  });
  const record = (input: AuditStepInput) => transactionWithRetry(ds, (m) => audit.recordStep(m, input));
  const getAudit = async (id: string, key = 'key-a') =>
    fetch(`${base}/v1/audits/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${key}` } });
  const getJwks = async () =>
    (await (await fetch(`${base}/.well-known/service-audit-jwks.json`)).json()) as { keys: AuditJwk[] };

  beforeAll(async () => {
    db = await migratedTestDatabase('audit');
    ds = db.ds;
    kms = new LocalKmsProvider({
      ds,
      keyRing: 'projects/t/locations/global/keyRings/r/cryptoKeys/audit',
      masterKey: randomBytes(32),
      clock,
    });
    audit = new AuditService({ ds, kms });
    const reg = new RouteRegistry();
    registerAuditRoutes(reg, audit);
    const app = express();
    app.use(requestContext(clock));
    const router = express.Router();
    reg.mount(router, { public: pass, signer: pass, sandbox: pass });
    app.use(router);
    app.use(errorHandler(createLogger('silent')));
    // /v1 through the one pipeline, with the stand-in key check above
    const v1 = createPipeline(reg.apiRoutes(), {
      clock,
      logger: createLogger('silent'),
      authorize,
      classify: () => undefined,
      isDraining: () => false,
      observe: () => {},
      errorTypeBase: 'http://localhost/errors/',
    });
    server = http.createServer((req, res) => (isPipelinePath(req.url ?? '') ? v1(req, res) : app(req, res)));
    server.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    await db?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('a recorded step verifies offline with openssl and with verifyAuditRecord; tampering breaks it', async () => {
    const input = step('ses_verify1', 0);
    const { auditId } = await record(input);
    expect(auditId).toBe('ses_verify1_0');
    const res = await getAudit(auditId);
    expect(res.status).toBe(200);
    const view = (await res.json()) as AuditRecordView;
    const resultDigest = createHash('sha256').update(canonicalJson(input.result)).digest('base64url');
    expect(view).toMatchObject({
      audit_id: 'ses_verify1_0',
      version: 1,
      type: 'step.completed',
      session_id: 'ses_verify1',
      business_id: 'biz_a',
      environment: 'sandbox',
      workflow_id: 'wf_1',
      workflow_revision: 3,
      stage: 0,
      primitive: 'identify',
      result_digest: `sha-256:${resultDigest}`,
      verification: input.verification,
      previous_audit_hash: null,
      signed_at: '2026-03-01T10:00:00.000Z',
      service_signature: { kid: expect.stringMatching(/\/cryptoKeyVersions\/1$/), value: expect.any(String) },
    });
    expect(JSON.stringify(view)).not.toContain('Erika'); // only the result's digest is in the record
    const jwks = await getJwks();
    expect(opensslVerifies(view, jwks)).toBe(true);
    await expect(verifyAuditRecord(view, jwks)).resolves.toBe(true);

    const tampered = { ...view, workflow_revision: 4 };
    expect(opensslVerifies(tampered, jwks)).toBe(false);
    await expect(verifyAuditRecord(tampered, jwks)).resolves.toBe(false);
    const otherKid = { ...view, service_signature: { ...view.service_signature, kid: 'nope' } };
    await expect(verifyAuditRecord(otherKid, jwks)).resolves.toBe(false);
  });

  it('links each stage to the previous stage of its session (hash chain)', async () => {
    await record(step('ses_chain', 0));
    clock.advance(60_000);
    await record(step('ses_chain', 1));
    const v0 = (await (await getAudit('ses_chain_0')).json()) as AuditRecordView;
    const v1 = (await (await getAudit('ses_chain_1')).json()) as AuditRecordView;
    const { service_signature: _s, ...content0 } = v0;
    expect(v1.previous_audit_hash).toBe(createHash('sha256').update(canonicalJson(content0)).digest('hex'));
    expect(v1.signed_at).toBe('2026-03-01T10:01:00.000Z');
    expect(v0.previous_audit_hash).toBeNull();
  });

  it('a stage is recorded once: a second record for the same audit id fails', async () => {
    await record(step('ses_once', 0));
    await expect(record(step('ses_once', 0))).rejects.toThrow(/Duplicate entry/);
  });

  it('another business or environment gets not_found for an audit id', async () => {
    await record(step('ses_private', 0));
    for (const key of ['key-b', 'key-a-live']) {
      const res = await getAudit('ses_private_0', key);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'not_found' });
    }
    expect((await getAudit('ses_missing_0')).status).toBe(404);
  });

  it('serves the JWKS publicly with CORS, five-minute caching and ETag revalidation', async () => {
    const res = await fetch(`${base}/.well-known/service-audit-jwks.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const etag = res.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    const body = (await res.json()) as { keys: AuditJwk[] };
    // a public JWK and what it signs (ADR 0047: audit-signing or receipt-seal), nothing else
    for (const k of body.keys)
      expect(Object.keys(k).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'purpose', 'use', 'x', 'y']);
    expect(body.keys.map((k) => k.purpose)).toContain('audit-signing');
    const again = await fetch(`${base}/.well-known/service-audit-jwks.json`, {
      headers: { 'if-none-match': etag! },
    });
    expect(again.status).toBe(304);
  });

  it('after rotation new records use the new kid and old records still verify against the JWKS', async () => {
    await record(step('ses_rot', 0));
    const oldView = (await (await getAudit('ses_rot_0')).json()) as AuditRecordView;
    const newKid = await kms.rotate('audit-signing');
    clock.advance(1000);
    await record(step('ses_rot', 1));
    const newView = (await (await getAudit('ses_rot_1')).json()) as AuditRecordView;
    expect(newView.service_signature.kid).toBe(newKid);
    expect(oldView.service_signature.kid).not.toBe(newKid);
    const jwks = await getJwks();
    expect(jwks.keys.map((k) => k.kid)).toEqual([newKid, oldView.service_signature.kid]);
    expect(opensslVerifies(oldView, jwks)).toBe(true);
    expect(opensslVerifies(newView, jwks)).toBe(true);
  });

  it('the verify-audit command prints OK / FAIL and exits 0 / 1 (key set from a file or a URL)', async () => {
    await record(step('ses_cli', 0));
    const view = (await (await getAudit('ses_cli_0')).json()) as AuditRecordView;
    const dir = fs.mkdtempSync(path.join(tmp, 'cli-'));
    fs.writeFileSync(path.join(dir, 'audit.json'), JSON.stringify(view));
    fs.writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ ...view, primitive: 'sign' }));
    fs.writeFileSync(path.join(dir, 'jwks.json'), JSON.stringify(await getJwks()));
    const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url));
    const cli = fileURLToPath(new URL('../../tools/verify-audit.ts', import.meta.url));
    const run = async (...args: string[]) => {
      // Async spawn: the URL case needs this process's HTTP server to keep answering.
      const p = spawn(tsx, [cli, ...args], { cwd: dir });
      let out = '';
      p.stdout.on('data', (d) => {
        out += d;
      });
      const code = await new Promise<number | null>((r) => p.on('close', r));
      return { code, out };
    };
    expect(await run('audit.json', 'jwks.json')).toEqual({
      code: 0,
      out: 'OK (the saved key set jwks.json)\n',
    });
    const fetched = await run('audit.json', `${base}/.well-known/service-audit-jwks.json`);
    expect(fetched.code).toBe(0);
    expect(fetched.out).toMatch(/^OK \(the key set published at http:\/\/127\.0\.0\.1:\d+\/\.well-known/);
    expect(fetched.out).toContain('plain http accepted only because 127.0.0.1 is this machine');
    // a key set over plain http from anywhere but this machine is refused before any request
    const plain = await run('audit.json', 'http://keys.example.org/.well-known/service-audit-jwks.json');
    expect(plain).toEqual({
      code: 1,
      out: 'FAIL: the key set must come over https (got http://keys.example.org)\n',
    });
    const bad = await run('bad.json', 'jwks.json');
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/^FAIL/);
  });
});
