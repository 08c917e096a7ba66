// The operator CLI beside a service on another port (issue 29, ADR 0051): the service records its base URL in
// its data directory when it listens; the CLI, run with that DATA_DIR and no BASE_URL, prints and mails links
// to that service (not to http://localhost:3000), and with neither BASE_URL nor a record it refuses to guess
// and changes nothing. The real CLI runs in its own process; the mail is the .eml file the service graph
// writes without SMTP.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperator } from '../support/dashboard';
import { startTestService, type TestService } from '../support/harness';

describe('operator CLI base URL', () => {
  let t: TestService;
  const emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'operator-no-record-'));

  beforeAll(async () => {
    t = await startTestService({ label: 'operator_base_url', workers: false });
  });
  afterAll(async () => {
    await t?.stop();
    fs.rmSync(emptyDir, { recursive: true, force: true });
  });

  const businesses = async () => Number((await t.svc.ds.query('SELECT COUNT(*) AS n FROM business'))[0].n);
  // vitest puts BASE_URL=/ into its own environment: an empty value is "not set"
  const create = (dataDir: string, email: string) =>
    runOperator(
      ['create-business', '--name', 'Port 3100 GmbH', '--owner-email', email, '--operator', 'ops-eve'],
      { DATABASE_URL: t.db.url, DATA_DIR: dataDir, BASE_URL: '', HOSTED_URL: '', PORT: '3000' },
    );

  it('the service recorded its base URL in its data directory', () => {
    const rec = JSON.parse(fs.readFileSync(path.join(t.svc.config.dataDir, 'service-urls.json'), 'utf8'));
    expect(rec).toMatchObject({ base_url: t.baseUrl, hosted_url: t.baseUrl });
  });

  it('without BASE_URL, prints and mails links to the service it runs beside', async () => {
    const out = await create(t.svc.config.dataDir, 'owner-3100@example.com');
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const link = JSON.parse(out.stdout).invitation_link as string;
    expect(link.startsWith(`${t.baseUrl}/`)).toBe(true);
    const mailDir = path.join(t.svc.config.dataDir, 'mail');
    const mails = fs.readdirSync(mailDir).map((f) => fs.readFileSync(path.join(mailDir, f), 'utf8'));
    const mail = mails.find((m) => m.includes('owner-3100@example.com')) ?? '';
    expect(mail).toContain(t.baseUrl.replace(/^http:\/\//, ''));
    expect(mail).not.toContain('localhost:3000');
  }, 120_000);

  it('with neither BASE_URL nor a recorded one, refuses to guess and creates nothing', async () => {
    const before = await businesses();
    const out = await create(emptyDir, 'owner-nowhere@example.com');
    expect(out.code).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(/base URL is unknown.*set BASE_URL/s);
    expect(out.stderr).toContain(path.join(emptyDir, 'service-urls.json'));
    expect(await businesses()).toBe(before);
  }, 120_000);
});
