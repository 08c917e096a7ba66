// Google Wallet's gw_rp_metadata_bytes (issue 26, ADR 0050): in registrar mode the operator imports, with the real
// CLI, the metadata Google returned for a business's leaf; the import is refused (gw_metadata_mismatch) unless
// the SHA-256 of the bytes is the value of the leaf's extension 1.3.6.1.4.1.11129.10.1; afterwards the signed DC
// API request (openid4vp-v1-signed) carries them in client_metadata. The request is read as a wallet would:
// jose for the JWS, openssl for the certificate's extension, node:crypto for the digest; the metadata bytes are
// encoded by the test's own CBOR encoder.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compactVerify, decodeProtectedHeader, importX509 } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { SANDBOX_ROUTE_ID } from '../../server/src/modules/catalog/catalog.seed';
import { CredentialRouteEntity } from '../../server/src/modules/credential-routes/catalog.entities';
import { cborEncode, Tagged } from '../support/cbor-encode';
import { runOperator } from '../support/dashboard';
import { Api, type Json, type TestService } from '../support/harness';
import { DEV_RECEIVER, identifyFixture } from '../support/page-fixture';
import { SignerClient } from '../support/signer';
import { pemOf } from '../support/test-ca';

const NAME = 'Gamma Rentals';

describe('Google Wallet: gw_rp_metadata_bytes imported per leaf and sent in signed DC API requests', () => {
  const clock = new ManualClock();
  const page = identifyFixture({
    label: 'gw_metadata',
    clock,
    workers: false,
    businessName: NAME,
    webhook: DEV_RECEIVER,
  });
  let t: TestService;
  let api: Api;
  let workflowId: string;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    ({ t, api, workflowId } = page);
    await t.svc.verifierIdentity.registrar.rotateCa();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-metadata-'));
    env = {
      ...(t.db.url ? { DATABASE_URL: t.db.url } : {}),
      DATA_DIR: t.svc.config.dataDir,
      BASE_URL: t.baseUrl,
    };
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The signed DC API request object of a new session: its x5c and its verified claims. */
  async function signedRequest() {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const signer = new SignerClient(t.baseUrl, created.body.id);
    expect((await signer.start()).status).toBe(200);
    const wr = await signer.call('POST', '/wallet-request/dc_api_signed');
    expect(wr.body.protocol).toBe('openid4vp-v1-signed');
    const jar = (wr.body.request as { request: string }).request;
    const x5c = decodeProtectedHeader(jar).x5c as string[];
    const { payload } = await compactVerify(jar, await importX509(pemOf(x5c.slice(0, 1)), 'ES256'));
    return { x5c, claims: JSON.parse(new TextDecoder().decode(payload)) as Json };
  }

  /** The digest (hex) inside the leaf's 1.3.6.1.4.1.11129.10.1 extension, as openssl reads it. */
  function extensionDigest(leafPem: string): string {
    fs.writeFileSync(path.join(dir, 'leaf.pem'), leafPem);
    const asn1 = execFileSync('openssl', ['asn1parse', '-in', 'leaf.pem'], {
      cwd: dir,
      encoding: 'utf8',
    }).split('\n');
    const at = asn1.findIndex((l) => l.includes(':1.3.6.1.4.1.11129.10.1'));
    const hex = /\[HEX DUMP\]:([0-9A-F]+)/.exec(asn1[at + 1] ?? '')?.[1] ?? '';
    expect(hex.slice(0, 4)).toBe('0420');
    return hex.slice(4).toLowerCase();
  }

  const metadataBytes = (displayName: string) =>
    cborEncode(
      new Tagged(
        24,
        cborEncode({
          schema_version: 'v1',
          display: { display_name: displayName, logo_uri: '', privacy_policy_uri: '' },
        }),
      ),
    );

  it('refuses metadata that does not match the certificate, imports the matching one, and then sends it', async () => {
    const before = await signedRequest();
    expect((before.claims.client_metadata as Json).gw_rp_metadata_bytes).toBeUndefined();
    const leafPem = pemOf(before.x5c.slice(0, 1));
    fs.writeFileSync(path.join(dir, 'google-cert.pem'), leafPem);

    // another business's metadata: its digest is not the one in this leaf
    fs.writeFileSync(
      path.join(dir, 'wrong.b64u'),
      Buffer.from(metadataBytes('Someone Else')).toString('base64url'),
    );
    const wrong = await runOperator(
      [
        'google-metadata',
        'import',
        '--cert',
        path.join(dir, 'google-cert.pem'),
        '--metadata',
        path.join(dir, 'wrong.b64u'),
        '--operator',
        'ops-gina',
      ],
      env,
    );
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('gw_metadata_mismatch');
    // not base64url at all
    fs.writeFileSync(path.join(dir, 'garbage.txt'), 'not base64url!');
    const garbage = await runOperator(
      [
        'google-metadata',
        'import',
        '--cert',
        path.join(dir, 'google-cert.pem'),
        '--metadata',
        path.join(dir, 'garbage.txt'),
        '--operator',
        'ops-gina',
      ],
      env,
    );
    expect(garbage.stderr).toContain('validation_failed: gw_rp_metadata_bytes must be base64url');

    const good = Buffer.from(metadataBytes(NAME)).toString('base64url');
    fs.writeFileSync(path.join(dir, 'good.b64u'), `${good}\n`);
    const ok = await runOperator(
      [
        'google-metadata',
        'import',
        '--cert',
        path.join(dir, 'google-cert.pem'),
        '--metadata',
        path.join(dir, 'good.b64u'),
        '--operator',
        'ops-gina',
      ],
      env,
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ purpose: 'business', environment: 'sandbox' });

    // what the wallet reads: the bytes, whose SHA-256 is the leaf's extension value
    const after = await signedRequest();
    expect(after.x5c[0]).toBe(before.x5c[0]);
    const sent = (after.claims.client_metadata as Json).gw_rp_metadata_bytes as string;
    expect(sent).toBe(good);
    const digest = createHash('sha256').update(Buffer.from(sent, 'base64url')).digest('hex');
    expect(digest).toBe(extensionDigest(pemOf(after.x5c.slice(0, 1))));
    // the encryption metadata is still there beside it
    expect((after.claims.client_metadata as Json).encrypted_response_enc_values_supported).toEqual([
      'A128GCM',
      'A256GCM',
    ]);
  }, 240_000);

  it('pnpm operator set-route --x5c-leaf-only records the route rule (audited); a bad value is refused', async () => {
    const on = await runOperator(
      ['set-route', '--route', SANDBOX_ROUTE_ID, '--x5c-leaf-only', 'true', '--operator', 'ops-gina'],
      env,
    );
    expect(on.code, on.stderr).toBe(0);
    expect(JSON.parse(on.stdout)).toMatchObject({ x5c_leaf_only: true });
    const row = await t.svc.ds.getRepository(CredentialRouteEntity).findOneByOrFail({ id: SANDBOX_ROUTE_ID });
    expect(row.x5cLeafOnly).toBe(true);
    const missing = await runOperator(
      ['set-route', '--route', 'rte_nope', '--x5c-leaf-only', 'true', '--operator', 'ops-gina'],
      env,
    );
    expect(missing.stderr).toContain('not_found');
    const off = await runOperator(
      ['set-route', '--route', SANDBOX_ROUTE_ID, '--x5c-leaf-only', 'false', '--operator', 'ops-gina'],
      env,
    );
    expect(off.code, off.stderr).toBe(0);
    expect(
      (await t.svc.ds.getRepository(CredentialRouteEntity).findOneByOrFail({ id: SANDBOX_ROUTE_ID }))
        .x5cLeafOnly,
    ).toBe(false);
  }, 120_000);
});
