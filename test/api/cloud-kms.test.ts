// Audit signatures from a cloud KMS, as an auditor observes them: with KMS_PROVIDER=gcp or aws the service
// signs each audit record through the real Google / AWS SDK against a loopback fake of the provider's wire
// protocol (real P-256 keys, see support/kms-fakes.ts); the record's kid is the provider's exact key-version
// name (GCP) or key ARN (AWS); the record verifies with openssl against the published JWKS; a rotation
// (a new key version configured, the service restarted) adds a key and keeps the old one until retired.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OAuth2Client } from 'google-auth-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../server/src/app/test-database';
import { configFrom } from '../../server/src/config/config';
import { CloudSigningKms } from '../../server/src/modules/kms/cloud-signing';
import { createService, type Service } from '../../server/src/service';
import { testConfig } from '../support/config';
import { Api, createBusiness, freePort, setUpIdentifyWorkflow } from '../support/harness';
import { FakeAwsKms, FakeGcpKms } from '../support/kms-fakes';
import { opensslVerifyAudit } from '../support/openssl';
import { shareWithReferenceWallet, startedSession } from '../support/signer';

const GCP_KEY = 'projects/acme-prod/locations/europe-west3/keyRings/audit/cryptoKeys/audit-signing';
const AWS_ARN = (n: number) =>
  `arn:aws:kms:eu-central-1:111122223333:key/0000000${n}-aaaa-bbbb-cccc-000000000000`;

function gcpAuth(): OAuth2Client {
  const c = new OAuth2Client();
  c.setCredentials({ access_token: 'fake-gcp-token', expiry_date: Date.now() + 3600_000 });
  return c;
}
const awsCredentials = { accessKeyId: 'test', secretAccessKey: 'test-secret' };

/** One service node over `db`, configured by `env`; several may run one after the other on the same db. */
async function startNode(db: TestDatabase, dataDir: string, env: Record<string, string>) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = testConfig({ port, dataDir, databaseUrl: db.url, env });
  const svc = await createService(config, {
    workers: false,
    kmsClients: { gcp: { authClient: gcpAuth() } as never, aws: { credentials: awsCredentials } },
  });
  await svc.listen();
  return { svc, baseUrl };
}

/** Completes one identify step through the hosted transport and returns its audit record and the JWKS. */
async function auditedStep(node: { svc: Service; baseUrl: string }, apiKey: string, workflowId: string) {
  const api = new Api(node.baseUrl, apiKey);
  const { id, signer } = await startedSession(
    node.baseUrl,
    await api.rest('POST', '/v1/sessions', { workflow_id: workflowId }),
  );
  const shared = await shareWithReferenceWallet(node.svc, signer);
  expect(shared.status).toBe(200);
  const audit = await api.rest('GET', `/v1/audits/${id}_0`);
  expect(audit.status).toBe(200);
  const jwks = await new Api(node.baseUrl).rest('GET', '/.well-known/service-audit-jwks.json');
  expect(jwks.status).toBe(200);
  return { audit: audit.body, jwks: jwks.body };
}

describe.each([
  {
    provider: 'gcp' as const,
    fake: () => new FakeGcpKms(),
    key: (n: number) => `${GCP_KEY}/cryptoKeyVersions/${n}`,
    env: (url: string, key: string) => ({ KMS_PROVIDER: 'gcp', GCP_KMS_KEY: key, GCP_KMS_ENDPOINT: url }),
  },
  {
    provider: 'aws' as const,
    fake: () => new FakeAwsKms(),
    key: AWS_ARN,
    env: (url: string, key: string) => ({
      KMS_PROVIDER: 'aws',
      AWS_KMS_KEY_ID: key,
      AWS_KMS_ENDPOINT: url,
      AWS_REGION: 'eu-central-1',
    }),
  },
])('audit signatures in $provider KMS (wire-protocol fake, real SDK)', ({ provider, fake, key, env }) => {
  const kms = fake();
  let db: TestDatabase;
  let dataDir: string;

  beforeAll(async () => {
    await kms.start();
    kms.addKey(key(1));
    kms.addKey(key(2));
    db = await createTestDatabase(`kms_${provider}`);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `svc-kms-${provider}-`));
  });
  afterAll(async () => {
    await kms.stop();
    await db?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('signs the record digest in the KMS, kid = the key version, and openssl verifies it against the JWKS; rotation keeps the old key until it is retired', async () => {
    // version 1
    const n1 = await startNode(db, dataDir, env(kms.url, key(1)));
    const biz = await createBusiness({ svc: n1.svc } as never, 'Cloud KMS GmbH');
    const { workflowId } = await setUpIdentifyWorkflow(
      new Api(n1.baseUrl, biz.apiKey, biz.dashboard),
      'http://127.0.0.1:9/h',
    );
    const first = await auditedStep(n1, biz.apiKey, workflowId);
    await n1.svc.close();

    expect(first.audit.service_signature.kid).toBe(key(1));
    expect(first.jwks.keys.map((k: { kid: string }) => k.kid)).toEqual([key(1)]);
    expect(first.jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(opensslVerifyAudit(first.audit, first.jwks)).toBe(true);
    expect(opensslVerifyAudit({ ...first.audit, stage: 1 }, first.jwks)).toBe(false);

    // what went over the wire: the 32-byte digest, never the record, in the provider's own protocol
    if (provider === 'aws') {
      const sign = kms.requests.find((r) => r.headers['x-amz-target'] === 'TrentService.Sign');
      expect(sign?.headers['content-type']).toBe('application/x-amz-json-1.1');
      expect(sign?.body).toMatchObject({
        KeyId: key(1),
        MessageType: 'DIGEST',
        SigningAlgorithm: 'ECDSA_SHA_256',
      });
      expect(Buffer.from(String(sign?.body?.Message), 'base64')).toHaveLength(32);
    } else {
      const sign = kms.requests.find((r) => r.url.includes(':asymmetricSign'));
      expect(sign?.method).toBe('POST');
      expect(decodeURIComponent(sign?.url ?? '')).toContain(`/v1/${key(1)}:asymmetricSign`);
      const body = sign?.body as { digest: { sha256: string }; digestCrc32c: string };
      expect(Buffer.from(body.digest.sha256, 'base64')).toHaveLength(32);
      expect(body.digestCrc32c).toMatch(/^\d+$/);
    }

    // rotation: version 2 configured, node restarted; the old record still verifies against the new JWKS
    const n2 = await startNode(db, dataDir, env(kms.url, key(2)));
    const second = await auditedStep(n2, biz.apiKey, workflowId);
    expect(second.audit.service_signature.kid).toBe(key(2));
    expect(second.jwks.keys.map((k: { kid: string }) => k.kid)).toEqual([key(2), key(1)]);
    expect(opensslVerifyAudit(second.audit, second.jwks)).toBe(true);
    expect(opensslVerifyAudit(first.audit, second.jwks)).toBe(true);

    // retiring version 1 removes it from the key set: its records no longer verify against the JWKS
    await (n2.svc.audit as unknown as { kms: CloudSigningKms }).kms.retire(key(1));
    const after = await new Api(n2.baseUrl).rest('GET', '/.well-known/service-audit-jwks.json');
    expect(after.body.keys.map((k: { kid: string }) => k.kid)).toEqual([key(2)]);
    expect(opensslVerifyAudit(first.audit, after.body)).toBe(false);
    await n2.svc.close();

    // back to the local provider: it signs with its own key, and the cloud key stays verifiable
    const n3 = await startNode(db, dataDir, { KMS_PROVIDER: 'local' });
    const third = await auditedStep(n3, biz.apiKey, workflowId);
    await n3.svc.close();
    expect(third.audit.service_signature.kid).toMatch(
      /^local\/cryptoKeys\/audit-signing\/cryptoKeyVersions\/1$/,
    );
    expect(third.jwks.keys.map((k: { kid: string }) => k.kid)).toContain(key(2));
    expect(opensslVerifyAudit(third.audit, third.jwks)).toBe(true);
    expect(opensslVerifyAudit(second.audit, third.jwks)).toBe(true);
  });

  it('refuses to start when the configured key is unknown to the KMS', async () => {
    await expect(startNode(db, dataDir, env(kms.url, key(9)))).rejects.toThrow(/not found|no such key/);
  });
});

describe('KMS configuration', () => {
  it('names what is missing', () => {
    expect(() => configFrom({ KMS_PROVIDER: 'gcp' } as never)).toThrow(/GCP_KMS_KEY is required/);
    expect(() => configFrom({ KMS_PROVIDER: 'aws' } as never)).toThrow(/AWS_KMS_KEY_ID is required/);
    expect(() => configFrom({ KMS_PROVIDER: 'vault' } as never)).toThrow(/KMS_PROVIDER/);
    expect(configFrom({}).kms).toEqual({ provider: 'local' });
  });
});
