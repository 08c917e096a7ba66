// The verifier's access certificate from a real CA (issue 19, ADR 0034), as the operator and a wallet observe
// it: the operator CLI makes a key and a CSR, a test CA made with the openssl CLI issues the chain, the CLI
// imports it (refusing chains that do not validate, are for another key or host, or are expired), and the
// request object a wallet fetches at request_uri is then signed under that chain (checked with
// `openssl verify` against the CA, x5c without the root). A newer import takes over (rotation) and the old chain
// is kept, retired. A production start without an imported chain is refused with a clear message.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { base64url, compactVerify, decodeProtectedHeader, importX509 } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { AppError } from '../../server/src/common/errors';
import { AccountAuditEntity } from '../../server/src/modules/accounts/accounts.entities';
import { REPO_ROOT } from '../support/dashboard';
import { TSX_ENV } from '../support/embedded-process';
import { Api, freePort, type Json, type TestService } from '../support/harness';
import { FakeAwsKms } from '../support/kms-fakes';
import { DEV_RECEIVER, identifyFixture } from '../support/page-fixture';
import { tsNode } from '../support/script-bundles';
import { SignerClient } from '../support/signer';
import { makeTestCa, pemOf, type TestCa } from '../support/test-ca';

/** A script of ours in its own process (the operator CLI, the server's main): exit code and output. */
function tsx([script, ...args]: string[], env: Record<string, string | undefined>) {
  const run = tsNode(script as string, args);
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      run.file,
      run.args,
      // each run builds the service graph; generous, the machine is shared
      { cwd: REPO_ROOT, env: { ...env, ...TSX_ENV } as NodeJS.ProcessEnv, timeout: 180_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

describe('access certificates from a real CA', () => {
  const clock = new ManualClock();
  const page = identifyFixture({
    label: 'access_certs',
    clock,
    workers: false,
    webhook: DEV_RECEIVER,
  });
  let t: TestService;
  let env: Record<string, string>;
  let api: Api;
  let workflowId: string;
  let ca: TestCa;
  const op = async (...args: string[]) => {
    const out = await tsx(['server/src/tools/operator.ts', ...args, '--operator', 'ops-carol'], {
      ...env,
      LOG_LEVEL: 'error',
    });
    return { ...out, json: out.code === 0 ? (JSON.parse(out.stdout) as Json) : undefined };
  };
  /** The service clock at least at real time (certificates the CA issues start now), plus `ms`. */
  const tick = (ms = 0) => clock.set(Math.max(clock.now().getTime(), Date.now()) + ms);
  const certs = () => t.svc.verifierIdentity.accessCertificates;
  const refusal = (pem: string) => {
    tick();
    return certs()
      .importChain(pem, async () => {})
      .then(
        () => 'imported',
        (e: unknown) => (e instanceof AppError ? e.code : String(e)),
      );
  };

  beforeAll(async () => {
    ({ t, api, workflowId } = page);
    env = { DATABASE_URL: t.db.url, DATA_DIR: t.svc.config.dataDir, BASE_URL: t.baseUrl };
    ca = makeTestCa();
  });
  afterAll(() => ca?.remove());

  /** The request object a wallet fetches for a new session's cross-device step, and its x5c. */
  async function requestObject() {
    tick();
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const signer = new SignerClient(t.baseUrl, created.body.id);
    expect((await signer.start()).status).toBe(200);
    const cd = (await signer.call('POST', '/wallet-request/cross_device')).body as Json;
    const link = new URL(cd.uri);
    const jar = await (await fetch(link.searchParams.get('request_uri') as string)).text();
    const x5c = decodeProtectedHeader(jar).x5c as string[];
    const { payload } = await compactVerify(jar, await importX509(pemOf(x5c.slice(0, 1)), 'ES256'));
    return {
      uri: cd.uri as string,
      x5c,
      clientId: link.searchParams.get('client_id'),
      payload: JSON.parse(new TextDecoder().decode(payload)),
    };
  }

  it('refuses a production start without an imported chain, with a clear message', async () => {
    const port = await freePort();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-prod-'));
    // production keys live in a KMS (ADR 0048): the AWS wire-protocol fake, reached with the SDK's env credentials
    const kms = new FakeAwsKms();
    await kms.start();
    const arn = (n: string) => `arn:aws:kms:eu-central-1:111122223333:key/${n}-aaaa-bbbb-cccc-000000000000`;
    kms.addKey(arn('00000001'));
    kms.addSymmetricKey(arn('0000000a'));
    // its own embedded database (SQLite in a fresh data dir): a production start seeds no sandbox routes
    const out = await tsx(['server/src/main.ts'], {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'DATABASE_URL')),
      KMS_PROVIDER: 'aws',
      AWS_KMS_KEY_ID: arn('00000001'),
      AWS_KMS_WRAP_KEY_ID: arn('0000000a'),
      AWS_KMS_ENDPOINT: kms.url,
      AWS_REGION: 'eu-central-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test-secret',
      DATA_DIR: dataDir,
      APP_ENV: 'production',
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
      HOSTED_URL: t.baseUrl,
      LOG_LEVEL: 'error',
    });
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(
      /Refusing to start in production: no imported, currently valid access certificate for 127\.0\.0\.1/,
    );
    expect(out.stderr).toMatch(/verifier-key import-chain/);
    await kms.stop();
    // nothing is listening on its port
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toMatchObject({
      message: 'fetch failed',
      cause: { code: 'ECONNREFUSED' },
    });
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 300_000);

  it('makes a key and CSR, imports the CA-issued chain, and signs requests under it', async () => {
    const before = await requestObject(); // the self-made development chain
    const created = await op('verifier-key', 'create');
    expect(created.stderr).toBe('');
    const keyId = created.json.key_id as string;
    expect(created.json).toMatchObject({ host: '127.0.0.1', public_jwk: { kty: 'EC', crv: 'P-256' } });
    expect(created.json.public_jwk).not.toHaveProperty('d');
    const csrFile = path.join(ca.dir, 'service.csr');
    const csr = await op('verifier-key', 'csr', '--out', csrFile);
    expect(csr.json.key_id).toBe(keyId);
    // the CSR is a valid PKCS#10 request naming the host, as openssl reads it
    const csrText = await new Promise<string>((resolve, reject) =>
      execFile('openssl', ['req', '-in', csrFile, '-noout', '-text', '-verify'], (e, so, se) =>
        e ? reject(e) : resolve(so + se),
      ),
    );
    expect(csrText).toMatch(/verify OK/i);
    expect(csrText).toContain('DNS:127.0.0.1');

    const leafPem = ca.issue(fs.readFileSync(csrFile, 'utf8'));
    const chainFile = path.join(ca.dir, 'chain.pem');
    fs.writeFileSync(chainFile, leafPem + ca.intermediatePem + ca.rootPem);
    const imported = await op('verifier-key', 'import-chain', chainFile);
    expect(imported.stderr).toBe('');
    expect(imported.json).toMatchObject({ key_id: keyId, host: '127.0.0.1', retired: null });
    const audit = await t.svc.ds.getRepository(AccountAuditEntity).findBy({ actorId: 'ops-carol' });
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining(['verifier_key.create', 'verifier_key.import_chain']),
    );
    tick();
    await t.svc.verifierIdentity.assertProductionReady(); // a production start would now go ahead

    tick(31_000); // an instance re-reads the current chain at most every 30 s
    const after = await requestObject();
    expect(after.x5c).toHaveLength(2); // leaf and intermediate; the root is not sent
    expect(after.x5c).not.toContain(before.x5c[0]);
    expect(pemOf(after.x5c.slice(0, 1))).toBe(leafPem.replace(/\r/g, '').trim().concat('\n'));
    expect(ca.verify(pemOf(after.x5c.slice(0, 1)), pemOf(after.x5c.slice(1)))).toMatch(/: OK/);
    const leafDer = Buffer.from(after.x5c[0] as string, 'base64');
    const hash = base64url.encode(createHash('sha256').update(leafDer).digest());
    expect(after.clientId).toBe(`x509_hash:${hash}`);
    expect(after.payload.client_id).toBe(`x509_hash:${hash}`);
    // the reference wallet trusts the CA's root and completes the exchange under the imported chain
    expect((await t.svc.walletTransports.rootPem()).trim()).toBe(ca.rootPem.trim());
    expect(await t.svc.signedWallet.answerCrossDevice({ persona: 'adult', uri: after.uri })).toEqual({
      status: 200,
      // the same-device redirect back to the hosted page (ADR 0050)
      body: { redirect_uri: expect.stringMatching(/\/s\/[^/]+\/return#response_code=[\w-]{43}$/) },
    });
  }, 600_000);

  it('refuses chains that do not validate, are for another key or host, lack the usage, or are expired', async () => {
    const { pem: csr } = await certs().csr();
    // another CA's root: the chain does not lead to a root that signed it
    const other = makeTestCa('Other CA');
    try {
      expect(await refusal(ca.issue(csr) + ca.intermediatePem + other.rootPem)).toBe('access_chain_invalid');
      expect(await refusal(ca.issue(csr) + other.intermediatePem + other.rootPem)).toBe(
        'access_chain_invalid',
      );
    } finally {
      other.remove();
    }
    expect(await refusal(ca.issue(csr))).toBe('access_chain_invalid'); // the leaf alone
    expect(await refusal(ca.issue(ca.foreignCsr('127.0.0.1')) + ca.intermediatePem + ca.rootPem)).toBe(
      'access_chain_key_mismatch',
    );
    expect(
      await refusal(ca.issue(csr, { san: 'DNS:verifier.example' }) + ca.intermediatePem + ca.rootPem),
    ).toBe('access_chain_host_mismatch');
    expect(await refusal(ca.issue(csr, { keyUsage: 'keyAgreement' }) + ca.intermediatePem + ca.rootPem)).toBe(
      'access_chain_key_usage',
    );
    const expired = ca.issue(csr, { startdate: '20200101000000Z', enddate: '20200201000000Z' });
    expect(await refusal(expired + ca.intermediatePem + ca.rootPem)).toBe('access_chain_not_current');
    expect(await refusal('not a certificate')).toBe('access_chain_invalid');
    // a refusal over the CLI: exit code 1, the stable code's detail on stderr, nothing imported
    const wrongHost = path.join(ca.dir, 'wrong-host.pem');
    fs.writeFileSync(
      wrongHost,
      ca.issue(csr, { san: 'DNS:other.example' }) + ca.intermediatePem + ca.rootPem,
    );
    const cli = await op('verifier-key', 'import-chain', wrongHost);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(/SAN does not name 127\.0\.0\.1/);
    const listed = await certs().list();
    expect(listed.chains.filter((c) => c.retired === null)).toHaveLength(1);
  }, 400_000);

  it('rotates: a newer chain for a new key takes over, the old one is kept as retired', async () => {
    const oldChain = (await certs().list()).chains.find((c) => c.retired === null);
    const key = await certs().createKey();
    const { pem: csr } = await certs().csr(key.key_id);
    const leafPem = ca.issue(csr);
    tick();
    const rotated = await certs().importChain(leafPem + ca.intermediatePem + ca.rootPem, async () => {});
    expect(rotated.key_id).toBe(key.key_id);
    const { chains } = await certs().list();
    expect(chains.find((c) => c.id === oldChain?.id)?.retired).toEqual(expect.any(String));
    expect(chains.filter((c) => c.retired === null).map((c) => c.id)).toEqual([rotated.id]);
    tick(31_000);
    const req = await requestObject();
    expect(pemOf(req.x5c.slice(0, 1))).toBe(leafPem.replace(/\r/g, '').trim().concat('\n'));
    expect(ca.verify(pemOf(req.x5c.slice(0, 1)), pemOf(req.x5c.slice(1)))).toMatch(/: OK/);
  }, 120_000);
});
