// The operator CLI, black-box: each command runs `server/src/tools/operator.ts` in its own process against the
// test service's database, and the effect is observed over the service's public HTTP surface or the CLI's
// own output; every change leaves an operator audit entry. Each command starts the service graph in a new
// process (seconds each), so the suite keeps the number of invocations small and its timeouts generous.
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperator } from '../support/dashboard';
import { Api, createBusiness, type Json, startTestService, type TestService } from '../support/harness';

describe('operator CLI', () => {
  let t: TestService;
  let env: Record<string, string>;
  let api: Api;
  const op = async (...args: string[]) => {
    const out = await runOperator([...args, '--operator', 'ops-bob'], env);
    return { ...out, json: out.code === 0 ? (JSON.parse(out.stdout) as Json) : undefined };
  };

  beforeAll(async () => {
    t = await startTestService({ label: 'operator', workers: false });
    env = { DATABASE_URL: t.db.url, DATA_DIR: t.svc.config.dataDir, BASE_URL: t.baseUrl };
    api = new Api(t.baseUrl, (await createBusiness(t)).apiKey);
  });
  afterAll(async () => t?.stop());

  it('trusts an issuer key per environment, lists it, and distrusts it', async () => {
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    const trusted = await op(
      'trust-issuer',
      '--env',
      'production',
      '--name',
      'Test PID issuer',
      '--route',
      'rte_google_us_mdl',
      '--issuer',
      'https://pid.example',
      '--jwk',
      JSON.stringify(jwk),
    );
    expect(trusted.stderr).toBe('');
    expect(trusted.json).toMatchObject({
      trusted: 'issuer_key',
      route: 'rte_google_us_mdl',
      issuer: 'https://pid.example',
      environment: 'production',
    });
    const listed = (await op('list-keys')).json;
    expect(listed.issuer_keys).toContainEqual(
      expect.objectContaining({ issuer: 'https://pid.example', environment: 'production', retired: null }),
    );
    expect(
      (await op('distrust-issuer', '--env', 'production', '--issuer', 'https://pid.example')).json,
    ).toEqual({
      retired: 1,
      environment: 'production',
    });
    // nothing left to distrust: a clear refusal, exit code 1
    const again = await op('distrust-issuer', '--env', 'production', '--issuer', 'https://pid.example');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/Nothing trusted matches/);
  }, 300_000);

  it('accepts a route for production, visible in the catalog', async () => {
    const out = await op(
      'set-route',
      '--route',
      'rte_google_us_mdl',
      '--provider',
      'true',
      '--issuer-accepted',
      'true',
      '--service',
      'true',
    );
    expect(out.stderr).toBe('');
    const catalog = await api.rest('GET', '/v1/catalog');
    const route = catalog.body.routes.find((r: Json) => r.id === 'rte_google_us_mdl');
    expect(route.production).toMatchObject({
      available: true,
      acceptance: { provider: true, issuer: true, service: true },
    });
  }, 300_000);

  it('rotates the audit signing key: the public key set then has both versions', async () => {
    const before = (await api.rest('GET', '/.well-known/service-audit-jwks.json')).body.keys.length;
    const out = await op('rotate-audit-key');
    expect(out.json.kid).toMatch(/cryptoKeyVersions\/\d+$/);
    const jwks = (await api.rest('GET', '/.well-known/service-audit-jwks.json')).body;
    expect(jwks.keys.length).toBe(before + 1);
    expect(jwks.keys.map((k: Json) => k.kid)).toContain(out.json.kid);
  }, 300_000);

  it('refuses bad input with a message and exit code 1, and logs every change', async () => {
    const bad = await op('trust-issuer', '--env', 'staging', '--name', 'x', '--issuer', 'y', '--jwk', '{}');
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringMatching(/--env must be sandbox or production/)]);
    const garbage = await op(
      'trust-issuer',
      '--env',
      'sandbox',
      '--name',
      'x',
      '--route',
      'rte_sandbox_reference',
      '--issuer',
      'y',
      '--anchor',
      'not a pem',
    );
    expect(garbage.code).toBe(1);
    const log = (await op('audit-log')).json.map((e: Json) => [e.operator, e.action]);
    expect(log).toEqual(
      expect.arrayContaining([
        ['ops-bob', 'trust.issuer_key'],
        ['ops-bob', 'trust.retire'],
        ['ops-bob', 'route.acceptance'],
        ['ops-bob', 'kms.rotate'],
      ]),
    );
  }, 300_000);
});
