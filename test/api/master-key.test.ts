// Keys in the KMS, not beside it (ADR 0048), as an operator observes them: with a cloud KMS wrapping key
// configured the service master key is wrapped by the KMS (encrypt/decrypt over the provider's real SDK against
// its wire-protocol fake, support/kms-fakes.ts) and DATA_DIR holds only its ciphertext; the clear key file of
// earlier starts is wrapped and removed; a node configured with another wrapping key refuses to start instead
// of losing every sealed key; a rotation to a new key (stated by the operator) or to a new primary version
// re-wraps it; production refuses the local KMS and an unwrapped master key before writing anything.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OAuth2Client } from 'google-auth-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../server/src/app/test-database';
import { configFrom } from '../../server/src/config/config';
import {
  assertProductionKeys,
  CLEAR_MASTER_KEY_FILE,
  WRAPPED_MASTER_KEY_FILE,
} from '../../server/src/modules/kms/master-key';
import { createService } from '../../server/src/service';
import { testConfig } from '../support/config';
import { REPO_ROOT } from '../support/dashboard';
import { TSX_ENV } from '../support/embedded-process';
import { Api, createBusiness, freePort, setUpIdentifyWorkflow } from '../support/harness';
import { FakeAwsKms, FakeGcpKms } from '../support/kms-fakes';
import { tsNode } from '../support/script-bundles';

const GCP_RING = 'projects/acme-prod/locations/europe-west3/keyRings/service';
const awsArn = (n: string) => `arn:aws:kms:eu-central-1:111122223333:key/${n}-aaaa-bbbb-cccc-000000000000`;

function gcpAuth(): OAuth2Client {
  const c = new OAuth2Client();
  c.setCredentials({ access_token: 'fake-gcp-token', expiry_date: Date.now() + 3600_000 });
  return c;
}

describe.each([
  {
    provider: 'gcp' as const,
    fake: () => new FakeGcpKms(),
    audit: `${GCP_RING}/cryptoKeys/audit-signing/cryptoKeyVersions/1`,
    wrapA: `${GCP_RING}/cryptoKeys/master-a`,
    wrapB: `${GCP_RING}/cryptoKeys/master-b`,
    env: (url: string, audit: string, wrap?: string) => ({
      KMS_PROVIDER: 'gcp',
      GCP_KMS_KEY: audit,
      GCP_KMS_ENDPOINT: url,
      GCP_KMS_WRAP_KEY: wrap,
    }),
    wire: (r: { url: string; headers: Record<string, unknown> }) =>
      /:(encrypt|decrypt)$/.exec(decodeURIComponent(new URL(r.url, 'http://x').pathname))?.[1],
  },
  {
    provider: 'aws' as const,
    fake: () => new FakeAwsKms(),
    audit: awsArn('00000001'),
    wrapA: awsArn('0000000a'),
    wrapB: awsArn('0000000b'),
    env: (url: string, audit: string, wrap?: string) => ({
      KMS_PROVIDER: 'aws',
      AWS_KMS_KEY_ID: audit,
      AWS_KMS_ENDPOINT: url,
      AWS_REGION: 'eu-central-1',
      AWS_KMS_WRAP_KEY_ID: wrap,
    }),
    wire: (r: { url: string; headers: Record<string, unknown> }) =>
      ({ 'TrentService.Encrypt': 'encrypt', 'TrentService.Decrypt': 'decrypt' })[
        String(r.headers['x-amz-target'])
      ],
  },
])('the master key wrapped in $provider KMS', ({ provider, fake, audit, wrapA, wrapB, env, wire }) => {
  const kms = fake();
  let db: TestDatabase;
  let dataDir: string;
  const wrapped = () => path.join(dataDir, WRAPPED_MASTER_KEY_FILE);
  const clear = () => path.join(dataDir, CLEAR_MASTER_KEY_FILE);

  beforeAll(async () => {
    await kms.start();
    kms.addKey(audit);
    kms.addSymmetricKey(wrapA);
    kms.addSymmetricKey(wrapB);
    db = await createTestDatabase(`mkey_${provider}`);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `svc-mkey-${provider}-`));
  });
  afterAll(async () => {
    await kms.stop();
    await db?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (vars: Record<string, string | undefined>) => {
    const port = await freePort();
    const svc = await createService(testConfig({ port, dataDir, databaseUrl: db.url, env: vars }), {
      workers: false,
      kmsClients: {
        gcp: { authClient: gcpAuth() } as never,
        aws: { credentials: { accessKeyId: 'test', secretAccessKey: 'test-secret' } },
      },
    });
    await svc.listen();
    return { svc, baseUrl: `http://127.0.0.1:${port}` };
  };

  it('wraps the clear key of earlier starts, keeps every sealed key, and refuses another wrapping key', async () => {
    // an earlier release: local keys, a clear master key file, a webhook secret sealed under it
    const local = await start({});
    const biz = await createBusiness({ svc: local.svc } as never, 'Envelope GmbH');
    await setUpIdentifyWorkflow(new Api(local.baseUrl, biz.apiKey, biz.dashboard), 'http://127.0.0.1:9/h');
    await local.svc.close();
    const clearKey = fs.readFileSync(clear(), 'utf8').trim();
    expect(Buffer.from(clearKey, 'base64')).toHaveLength(32);

    // configured with wrapping key A: the same master key (the sealed webhook secret still opens, or the node
    // would refuse), now only as a ciphertext under A; the clear file is gone
    const before = kms.requests.length;
    const a = await start(env(kms.url, audit, wrapA));
    await a.svc.close();
    const calls = kms.requests.slice(before).map(wire).filter(Boolean);
    expect(calls).toContain('encrypt');
    expect(calls).toContain('decrypt');
    expect(fs.existsSync(clear())).toBe(false);
    const rec = JSON.parse(fs.readFileSync(wrapped(), 'utf8'));
    expect(rec).toMatchObject({ format: 'service-master-key/1', provider, wrap_key: wrapA });
    const stored = fs.readFileSync(wrapped());
    expect(stored.includes(Buffer.from(clearKey, 'base64'))).toBe(false);
    expect(stored.toString('utf8')).not.toContain(clearKey);
    expect(fs.statSync(wrapped()).mode & 0o077).toBe(0);

    // another wrapping key configured: refuses to start, and the wrapped key is untouched
    const file = fs.readFileSync(wrapped(), 'utf8');
    await expect(start(env(kms.url, audit, wrapB))).rejects.toThrow(
      new RegExp(`wrapped by ${provider} KMS key ${wrapA}.*MASTER_KEY_PREVIOUS_WRAP_KEY`),
    );
    expect(fs.readFileSync(wrapped(), 'utf8')).toBe(file);
    // nor does the local provider start over it
    await expect(start({})).rejects.toThrow(/the master key is wrapped by/);
    expect(fs.existsSync(clear())).toBe(false);

    // rotation to B, stated by the operator: unwrapped with A, re-wrapped under B; data still opens
    const b = await start({ ...env(kms.url, audit, wrapB), MASTER_KEY_PREVIOUS_WRAP_KEY: wrapA });
    await b.svc.close();
    expect(JSON.parse(fs.readFileSync(wrapped(), 'utf8')).wrap_key).toBe(wrapB);
    await expect(start(env(kms.url, audit, wrapA))).rejects.toThrow(/not by the configured/);
    const again = await start(env(kms.url, audit, wrapB));
    await again.svc.close();

    if (provider === 'gcp') {
      // a new primary version of B: the next start re-wraps under it (old versions still decrypt)
      kms.rotateSymmetricKey(wrapB);
      const rotated = await start(env(kms.url, audit, wrapB));
      await rotated.svc.close();
      expect(JSON.parse(fs.readFileSync(wrapped(), 'utf8')).key_version).toBe(`${wrapB}/cryptoKeyVersions/2`);
    }

    // the wrapped file lost: no new master key is made up over a database of sealed keys
    fs.renameSync(wrapped(), `${wrapped()}.bak`);
    await expect(start(env(kms.url, audit, wrapB))).rejects.toThrow(/database holds .* sealed/);
    expect(fs.existsSync(wrapped())).toBe(false);
    fs.renameSync(`${wrapped()}.bak`, wrapped());
    const back = await start(env(kms.url, audit, wrapB));
    await back.svc.close();
  });
});

/** The server's main in its own process: exit code and output. */
function main(env: Record<string, string | undefined>) {
  return new Promise<{ code: number; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      tsNode('server/src/main.ts').args,
      { cwd: REPO_ROOT, env: { ...env, ...TSX_ENV } as NodeJS.ProcessEnv, timeout: 180_000 },
      (err, _stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
    ),
  );
}

describe('production keys', () => {
  it('refuses the local KMS and an unwrapped master key, saying what to configure', () => {
    const prod = (v: Record<string, string>) => configFrom({ APP_ENV: 'production', ...v } as never);
    expect(() => assertProductionKeys(prod({}))).toThrow(
      /local KMS.*KMS_PROVIDER=gcp with GCP_KMS_KEY and GCP_KMS_WRAP_KEY=.*KMS_PROVIDER=aws/,
    );
    const gcp = { KMS_PROVIDER: 'gcp', GCP_KMS_KEY: `${GCP_RING}/cryptoKeys/a/cryptoKeyVersions/1` };
    expect(() => assertProductionKeys(prod(gcp))).toThrow(/unwrapped master key.*GCP_KMS_WRAP_KEY=/);
    const aws = { KMS_PROVIDER: 'aws', AWS_KMS_KEY_ID: awsArn('1') };
    expect(() => assertProductionKeys(prod(aws))).toThrow(/unwrapped master key.*AWS_KMS_WRAP_KEY_ID=/);
    expect(() =>
      assertProductionKeys(prod({ ...gcp, GCP_KMS_WRAP_KEY: `${GCP_RING}/cryptoKeys/master` })),
    ).not.toThrow();
    expect(() => assertProductionKeys(prod({ ...aws, AWS_KMS_WRAP_KEY_ID: awsArn('2') }))).not.toThrow();
    // development keeps the embedded default
    expect(() => assertProductionKeys(configFrom({}))).not.toThrow();
    // a wrapping key is a cryptoKey of the configured provider
    expect(() => configFrom({ GCP_KMS_WRAP_KEY: `${GCP_RING}/cryptoKeys/master` } as never)).toThrow(
      /set KMS_PROVIDER=gcp or aws/,
    );
    expect(() =>
      configFrom({ ...gcp, GCP_KMS_WRAP_KEY: `${GCP_RING}/cryptoKeys/m/cryptoKeyVersions/1` } as never),
    ).toThrow(/GCP_KMS_WRAP_KEY must be a cryptoKeys resource name/);
  });

  it('the process refuses to start in production on local keys, before writing any key', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-prodkeys-'));
    try {
      const out = await main({
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'DATABASE_URL')),
        DATA_DIR: dataDir,
        APP_ENV: 'production',
        PORT: '0',
        BASE_URL: 'http://127.0.0.1:9',
        LOG_LEVEL: 'error',
      });
      expect(out.code).toBe(1);
      expect(out.stderr).toMatch(/Refusing to start in production with the local KMS/);
      expect(fs.readdirSync(dataDir)).toEqual([]);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("the local provider's key ids no longer look like Google Cloud resource names", () => {
    expect(configFrom({}).kmsKeyRing).not.toMatch(/^projects\//);
  });
});
