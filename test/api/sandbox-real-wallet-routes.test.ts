// Sandbox routes for real wallets' test credentials (issue 26, ADR 0053), as an integrator and an operator see
// them: the EU test PID route and Google Wallet's sandbox ID pass route are listed, sandbox-only, and off; the
// operator trusting the issuer in the sandbox (`pnpm operator trust-issuer`, audited) turns that route on in the
// sandbox, for identify and age_verify only; production stays closed (a sandbox-only issuer is never accepted).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountAuditEntity } from '../../server/src/modules/accounts/accounts.entities';
import { runOperator } from '../support/dashboard';
import { Api, createBusiness, type Json, startTestService, type TestService } from '../support/harness';
import { makeTestCa, type TestCa } from '../support/test-ca';

describe('sandbox routes for real wallets: off until the operator trusts the issuer', () => {
  let t: TestService;
  let ca: TestCa;
  let sandbox: Api;
  const route = async (id: string) =>
    ((await sandbox.rest('GET', '/v1/catalog')).body.routes as Json[]).find((r) => r.id === id) as Json;

  beforeAll(async () => {
    t = await startTestService({ label: 'sandbox_real_routes', workers: false });
    ca = makeTestCa('Google ID pass sandbox IACA');
    sandbox = new Api(t.baseUrl, (await createBusiness(t, 'Acme Lending')).apiKey);
  }, 300_000);
  afterAll(async () => {
    await t?.stop();
    ca?.remove();
  });

  it('lists them off; trust-issuer in the sandbox turns one on, identify and age_verify only', async () => {
    for (const id of ['rte_eudi_pid_test', 'rte_google_idpass_sandbox']) {
      expect(await route(id)).toMatchObject({
        issuer: { sandbox_only: true },
        sandbox: { available: false },
        production: { available: false },
      });
    }
    const google = await route('rte_google_idpass_sandbox');
    expect(google.notes).toContain('off until the operator trusts');
    expect(google.primitive_protocols).toMatchObject({ sign: [], attestation: [] });

    const out = await runOperator(
      [
        'trust-issuer',
        '--env',
        'sandbox',
        '--route',
        'rte_google_idpass_sandbox',
        '--name',
        'Google sandbox ID pass',
        '--doctype',
        'com.google.wallet.idcard.1',
        '--iaca',
        `${ca.dir}/root.pem`,
        '--operator',
        'ops-dana',
      ],
      {
        ...(t.db.url ? { DATABASE_URL: t.db.url } : {}),
        DATA_DIR: t.svc.config.dataDir,
        BASE_URL: t.baseUrl,
      },
    );
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ trusted: 'mdoc_iaca', sandbox_available: true });

    expect(await route('rte_google_idpass_sandbox')).toMatchObject({
      sandbox: {
        available: true,
        primitives: { identify: true, age_verify: true, sign: false, attestation: false },
      },
      production: { available: false },
    });
    expect(await route('rte_eudi_pid_test')).toMatchObject({ sandbox: { available: false } });
    await expect(
      t.svc.catalog.setAcceptance('rte_google_idpass_sandbox', {
        provider: true,
        issuer: true,
        service: true,
      }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    const audit = await t.svc.ds
      .getRepository(AccountAuditEntity)
      .findBy({ action: 'route.sandbox_available' });
    expect(audit.map((r) => [r.actorId, r.target])).toEqual([['ops-dana', 'rte_google_idpass_sandbox']]);
  }, 300_000);
});
