// Registrar mode (issue 19, ADR 0034) as a wallet observes it: the service acts as its own CA and each
// business's requests are signed with that business's own leaf: business A's under A's, B's under B's. The
// chain is checked with `openssl verify` against the registrar CA, the subject and the relying-party metadata
// extension (1.3.6.1.4.1.11129.10.1) are read with `openssl x509 -text` / `openssl asn1parse`, and the
// extension's SHA-256 is recomputed from the business's display data with an independent CBOR encoder.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compactVerify, decodeProtectedHeader, importX509 } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { cborEncode, Tagged } from '../support/cbor-encode';
import { Api, type Json, startTestService, type TestService } from '../support/harness';
import { DEV_RECEIVER, identifyBusiness } from '../support/page-fixture';
import { SignerClient } from '../support/signer';
import { pemOf } from '../support/test-ca';

const openssl = (cwd: string, args: string[]) =>
  execFileSync('openssl', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('registrar mode: each business signs under its own leaf', () => {
  const clock = new ManualClock();
  let t: TestService;
  let dir: string;
  let registrarRoot: string;
  const biz: Record<'A' | 'B', { name: string; api: Api; workflowId: string }> = {} as never;

  beforeAll(async () => {
    t = await startTestService({ label: 'registrar', clock, workers: false });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'registrar-'));
    for (const [k, name] of [
      ['A', 'Acme Lending'],
      ['B', 'Beta Bank, Zürich'],
    ] as const) {
      const { api, workflowId } = await identifyBusiness(t, { businessName: name, webhook: DEV_RECEIVER });
      biz[k] = { name, api, workflowId };
    }
    registrarRoot = (await t.svc.verifierIdentity.registrar.rotateCa()).root_pem;
    fs.writeFileSync(path.join(dir, 'registrar-root.pem'), registrarRoot);
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await t?.stop();
  });

  async function requestOf(k: 'A' | 'B') {
    const created = await biz[k].api.rest('POST', '/v1/sessions', { workflow_id: biz[k].workflowId });
    expect(created.status).toBe(201);
    const signer = new SignerClient(t.baseUrl, created.body.id);
    expect((await signer.start()).status).toBe(200);
    const cd = (await signer.call('POST', '/wallet-request/cross_device')).body as Json;
    const link = new URL(cd.uri);
    const jar = await (await fetch(link.searchParams.get('request_uri') as string)).text();
    const x5c = decodeProtectedHeader(jar).x5c as string[];
    const { payload } = await compactVerify(jar, await importX509(pemOf(x5c.slice(0, 1)), 'ES256'));
    return { uri: cd.uri as string, x5c, payload: JSON.parse(new TextDecoder().decode(payload)) as Json };
  }

  /** SHA-256 (hex) of RelyingPartyMetadataBytes = #6.24(bstr .cbor RelyingPartyMetadata), encoded here. */
  const expectedDigest = (displayName: string) =>
    createHash('sha256')
      .update(
        cborEncode(
          new Tagged(
            24,
            cborEncode({
              schema_version: 'v1',
              display: { display_name: displayName, logo_uri: '', privacy_policy_uri: '' },
            }),
          ),
        ),
      )
      .digest('hex');

  it('signs A and B under their own leaves, chained to the registrar CA, with the RP metadata extension', async () => {
    const seen: string[] = [];
    for (const k of ['A', 'B'] as const) {
      const req = await requestOf(k);
      expect(req.x5c).toHaveLength(1); // the leaf; the registrar root is not sent
      const leafFile = path.join(dir, `${k}.pem`);
      fs.writeFileSync(leafFile, pemOf(req.x5c));
      expect(openssl(dir, ['verify', '-CAfile', 'registrar-root.pem', `${k}.pem`])).toMatch(/: OK/);
      const text = openssl(dir, [
        'x509',
        '-in',
        `${k}.pem`,
        '-noout',
        '-text',
        '-nameopt',
        'utf8,sep_comma_plus',
      ]);
      expect(text).toContain(`CN=${biz[k].name}`);
      expect(text).toContain('DNS:127.0.0.1');
      expect(text).toMatch(/1\.3\.6\.1\.4\.1\.11129\.10\.1:\s*\n/); // present, not marked critical
      expect(text).not.toMatch(/1\.3\.6\.1\.4\.1\.11129\.10\.1: critical/);
      // the extension's extnValue, as openssl parses the certificate: OCTET STRING { OCTET STRING digest }
      const asn1 = openssl(dir, ['asn1parse', '-in', `${k}.pem`]).split('\n');
      const at = asn1.findIndex((l) => l.includes(':1.3.6.1.4.1.11129.10.1'));
      expect(at).toBeGreaterThan(0);
      const hex = /\[HEX DUMP\]:([0-9A-F]+)/.exec(asn1[at + 1] ?? '')?.[1] ?? '';
      expect(hex.slice(0, 4)).toBe('0420');
      expect(hex.slice(4).toLowerCase()).toBe(expectedDigest(biz[k].name));
      seen.push(req.payload.client_id as string);
      // the sandbox wallet trusts the registrar root and completes the exchange under this business's leaf
      expect(await t.svc.signedWallet.answerCrossDevice({ persona: 'adult', uri: req.uri })).toEqual({
        status: 200,
        // the same-device redirect back to the hosted page (ADR 0050)
        body: { redirect_uri: expect.stringMatching(/\/s\/[^/]+\/return#response_code=[\w-]{43}$/) },
      });
    }
    expect(new Set(seen).size).toBe(2); // A's and B's client identifiers differ
  }, 300_000);

  it('keeps one leaf per business while nothing changes, and issues a new one when the CA rotates', async () => {
    const first = await requestOf('A');
    clock.advance(31_000);
    expect((await requestOf('A')).x5c[0]).toBe(first.x5c[0]);
    const rotated = await t.svc.verifierIdentity.registrar.rotateCa();
    const after = await requestOf('A');
    expect(after.x5c[0]).not.toBe(first.x5c[0]);
    fs.writeFileSync(path.join(dir, 'rotated-root.pem'), rotated.root_pem);
    fs.writeFileSync(path.join(dir, 'after.pem'), pemOf(after.x5c));
    expect(openssl(dir, ['verify', '-CAfile', 'rotated-root.pem', 'after.pem'])).toMatch(/: OK/);
  }, 300_000);
});
