// Reader authentication of Annex C requests (issue 26, ADR 0049), as the operator and a wallet observe it: the
// operator makes a reader key and CSR (CN = the hosted domain), a test CA made with the openssl CLI issues the
// certificate (standing in for Apple Business), the import refuses what Apple's would not be (expired, another
// key, another domain, a chain that does not link) with stable codes, and then every Annex C request of the
// route carries `readerAuthAll` (and `readerAuth` per document where the route asks for it). The request is read
// by the independent wallet's own CBOR and node:crypto (test/support/independent-wallet/reader-auth.ts), the
// chain by `openssl verify`; the wallet still completes the session. /readyz warns 30 days ahead, rotation
// signs with both until the old one is retired.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../server/src/common/errors';
import { AccountAuditEntity } from '../../server/src/modules/accounts/accounts.entities';
import type { ReaderCertificates } from '../../server/src/modules/relying-party/reader-certificates';
import { annexCSuite } from '../support/annex-c-suite';
import { runOperator } from '../support/dashboard';
import { Api, type TestService } from '../support/harness';
import {
  type AnnexCRequest,
  AnnexCWallet,
  dcapiSessionTranscript,
} from '../support/independent-wallet/annex-c-wallet';
import { pemOfDer, readReaderAuth } from '../support/independent-wallet/reader-auth';
import { makeTestCa, type TestCa } from '../support/test-ca';

describe('reader certificates and readerAuthAll (Annex C)', () => {
  const s = annexCSuite('reader_certs');
  const { clock, newSession, annexCRequest } = s;
  let t: TestService;
  let ca: TestCa;
  // two seconds ahead of real time: a certificate openssl issues in the next moment is already valid
  const tick = () => clock.set(Math.max(clock.now().getTime(), Date.now() + 2000));
  const certs = () => t.svc.readerCerts;
  /** An import at the service clock's "now", just after the test CA issued the certificate. */
  const importNow = (input: Parameters<ReaderCertificates['import']>[0]) => {
    tick();
    return certs().import(input);
  };
  const code = (p: Promise<unknown>) =>
    p.then(
      () => 'imported',
      (e: unknown) => (e instanceof AppError ? e.code : String(e)),
    );
  const chainOf = (leaf: string) => leaf + ca.intermediatePem + ca.rootPem;

  beforeAll(() => {
    ({ t } = s.state);
    ca = makeTestCa('Test Reader CA');
  });
  afterAll(() => ca?.remove());

  /** The Annex C request of a new sandbox identify session, and its reader authentication read independently. */
  async function signedRequest() {
    tick();
    const { signer } = await newSession('identify');
    const { requestId, request } = await annexCRequest(signer);
    const transcript = dcapiSessionTranscript(request.encryptionInfo, s.state.origin);
    return { signer, requestId, request, read: readReaderAuth(request.deviceRequest, transcript) };
  }

  it('without a reader certificate the request is unsigned (version 1.0, no readerAuthAll)', async () => {
    const { request, read } = await signedRequest();
    // a wallet that behaves like Apple Wallet refuses it
    const apple = new AnnexCWallet(s.state.held, { requireReaderAuth: true });
    await expect(apple.answer(request, s.state.origin)).rejects.toThrow(
      'reader authentication required: no valid readerAuthAll',
    );
    expect(read).toEqual({
      version: '1.0',
      readerAuthAll: [],
      perDocument: [undefined, undefined, undefined, undefined],
    });
    const ready = await new Api(t.baseUrl).rest('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.warnings).toBeUndefined();
  });

  it('the CSR names the hosted domain in CN and SAN, with a P-256 key', async () => {
    tick();
    const csr = await certs().csr('sandbox', { organization: 'Example Shop', country: 'de' });
    expect(csr).toMatchObject({ domain: '127.0.0.1', environment: 'sandbox' });
    const text = execFileSync('openssl', ['req', '-noout', '-text', '-verify'], {
      input: csr.pem,
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    expect(text).toMatch(/Subject: .*CN\s*=\s*127\.0\.0\.1/);
    expect(text).toMatch(/O\s*=\s*Example Shop/);
    expect(text).toMatch(/C\s*=\s*DE/);
    expect(text).toMatch(/ASN1 OID: prime256v1/);
    expect(text).toMatch(/DNS:127\.0\.0\.1/);
  });

  it('refuses expired, foreign-key, other-domain and unlinked certificates with stable codes', async () => {
    tick();
    const csr = await certs().csr('sandbox');
    const imp = (pem: string, c: ReaderCertificates = certs()) =>
      code(c.import({ pem, routeId: 'rte_sandbox_reference', environment: 'sandbox' }));
    const expired = ca.issue(csr.pem, { startdate: '20200101000000Z', enddate: '20200201000000Z' });
    expect(await imp(chainOf(expired))).toBe('reader_cert_expired');
    const future = ca.issue(csr.pem, { startdate: '20990101000000Z', enddate: '20990201000000Z' });
    expect(await imp(chainOf(future))).toBe('reader_cert_not_yet_valid');
    expect(await imp(chainOf(ca.issue(ca.foreignCsr('127.0.0.1'))))).toBe('reader_cert_key_mismatch');
    // the same database, a service whose hosted page is on another domain
    const Certs = certs().constructor as typeof ReaderCertificates;
    const elsewhere = new Certs({
      ds: t.svc.ds,
      sealer: undefined as never, // import never opens a key
      hostedUrl: 'https://shop.example',
      clock,
    });
    expect(await imp(chainOf(ca.issue(csr.pem)), elsewhere)).toBe('reader_cert_domain_mismatch');
    const leaf = ca.issue(csr.pem);
    expect(await imp(leaf)).toBe('reader_cert_chain_invalid'); // no issuer given
    expect(await imp(leaf + ca.rootPem)).toBe('reader_cert_chain_invalid'); // the root did not sign the leaf
    expect(await imp('not a certificate')).toBe('reader_cert_chain_invalid');
    // a route that does not exist
    await expect(
      certs().import({ pem: chainOf(leaf), routeId: 'rte_nope', environment: 'sandbox' }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    // a production import of a sandbox key: the key is not a production reader key
    await expect(
      certs().import({ pem: chainOf(leaf), routeId: 'rte_sandbox_reference', environment: 'production' }),
    ).rejects.toMatchObject({ code: 'reader_cert_key_mismatch' });
    expect(await certs().list()).toEqual([]);
  });

  it('signs readerAuthAll and readerAuth; the independent wallet verifies them and completes', async () => {
    tick();
    const csr = await certs().csr('sandbox');
    const leafPem = ca.issue(csr.pem, { san: 'DNS:127.0.0.1' });
    const view = await importNow({
      pem: chainOf(leafPem),
      routeId: 'rte_sandbox_reference',
      environment: 'sandbox',
      perDocument: true,
    });
    expect(view).toMatchObject({ route: 'rte_sandbox_reference', per_document: true, retired: null });
    // a certificate of another route (Apple's, production) does not sign this sandbox route's requests
    const appleCsr = await certs().csr('production');
    const appleCert = await importNow({
      pem: chainOf(ca.issue(appleCsr.pem)),
      routeId: 'rte_apple_us_mdl',
      environment: 'production',
    });
    const { signer, requestId, request, read } = await signedRequest();
    await certs().retire(appleCert.id);
    expect(read.version).toBe('1.1');
    expect(read.readerAuthAll).toHaveLength(1);
    const [sig] = read.readerAuthAll;
    expect(sig?.valid).toBe(true);
    expect(sig?.payload).toBeNull(); // detached
    expect([...(sig?.protectedHeader ?? [])]).toEqual([[1, -7]]);
    // x5chain: the leaf and the intermediate, not the root; openssl builds the path to the CA's root
    expect(sig?.x5chain).toHaveLength(2);
    const [leafDer, intDer] = sig?.x5chain ?? [];
    expect(pemOfDer(leafDer as Uint8Array).replace(/\s/g, '')).toBe(leafPem.replace(/\s/g, ''));
    expect(ca.verify(pemOfDer(leafDer as Uint8Array), pemOfDer(intDer as Uint8Array))).toMatch(/: OK/);
    // per document: every DocRequest (PID, mDL, Digital ID, ID pass) carries a valid readerAuth
    expect(read.perDocument.map((p) => p?.valid)).toEqual([true, true, true, true]);
    // a signature over another transcript (another origin) does not verify: the check can fail
    const other = readReaderAuth(
      request.deviceRequest,
      dcapiSessionTranscript(request.encryptionInfo, 'https://evil.example'),
    );
    expect(other.readerAuthAll[0]?.valid).toBe(false);
    expect(other.perDocument[0]?.valid).toBe(false);
    // a wallet that behaves like Apple Wallet answers it, and not the same request from another origin
    const apple = new AnnexCWallet(s.state.held, { requireReaderAuth: true });
    await expect(apple.answer(request, 'https://evil.example')).rejects.toThrow(
      'reader authentication required',
    );
    const res = await signer.submit(requestId, await apple.answer(request as AnnexCRequest, s.state.origin));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('completed');
  });

  it('rotation: a second certificate signs beside the first until the first is retired; /readyz warns', async () => {
    tick();
    const before = await certs().list();
    const csr = await certs().csr('sandbox');
    const second = await importNow({
      pem: chainOf(ca.issue(csr.pem)),
      routeId: 'rte_sandbox_reference',
      environment: 'sandbox',
    });
    const both = (await signedRequest()).read;
    expect(both.readerAuthAll.map((x) => x.valid)).toEqual([true, true]);
    await certs().retire(before[0]?.id as string);
    const after = (await signedRequest()).read;
    expect(after.readerAuthAll).toHaveLength(1);
    expect(after.perDocument).toEqual([undefined, undefined, undefined, undefined]); // only the retired one asked for it
    expect(Buffer.from(after.readerAuthAll[0]?.x5chain[0] as Uint8Array).toString('hex')).not.toBe(
      Buffer.from(both.readerAuthAll[0]?.x5chain[0] as Uint8Array).toString('hex'),
    );
    // the test CA issues for 20 days: inside the 30-day warning window; readiness stays 200
    const ready = await new Api(t.baseUrl).rest('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
    expect(ready.body.warnings).toEqual([
      expect.stringMatching(new RegExp(`^reader_cert_expiring: ${second.id} `)),
    ]);
    const listed = await certs().list();
    expect(listed.find((c) => c.id === second.id)?.days_left).toBeGreaterThanOrEqual(18);
    await expect(certs().retire(before[0]?.id as string)).rejects.toMatchObject({ code: 'not_found' });
    // an expired current certificate stops signing and is warned as expired
    clock.set(Date.parse(second.not_after) + 1000);
    const { read } = await (async () => {
      const { signer } = await newSession('identify');
      const { request } = await annexCRequest(signer);
      return {
        read: readReaderAuth(
          request.deviceRequest,
          dcapiSessionTranscript(request.encryptionInfo, s.state.origin),
        ),
      };
    })();
    expect(read.readerAuthAll).toEqual([]);
    const late = await new Api(t.baseUrl).rest('GET', '/readyz');
    expect(late.body.warnings).toEqual([expect.stringMatching(/^reader_cert_expired: /)]);
    await certs().retire(second.id);
  });

  it('the operator CLI: reader-cert csr, import (refused with its code, then accepted), list, retire', async () => {
    const env = { DATABASE_URL: t.db.url, DATA_DIR: t.svc.config.dataDir, BASE_URL: t.baseUrl };
    const op = async (...args: string[]) => {
      const out = await runOperator([...args, '--operator', 'ops-dana'], env);
      return { ...out, json: out.code === 0 ? JSON.parse(out.stdout) : undefined };
    };
    const csrFile = path.join(ca.dir, 'apple.csr');
    const csr = await op(
      'reader-cert',
      'csr',
      '--env',
      'production',
      '--org',
      'Example Shop',
      '--out',
      csrFile,
    );
    expect(csr.json).toMatchObject({ domain: '127.0.0.1', environment: 'production' });
    expect(fs.readFileSync(csrFile, 'utf8')).toBe(csr.json.pem);
    const expiredFile = path.join(ca.dir, 'apple-expired.pem');
    fs.writeFileSync(
      expiredFile,
      chainOf(ca.issue(csr.json.pem, { startdate: '20200101000000Z', enddate: '20200201000000Z' })),
    );
    const refused = await op(
      'reader-cert',
      'import',
      '--env',
      'production',
      '--route',
      'rte_apple_us_mdl',
      expiredFile,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^operator: reader_cert_expired: /);
    const goodFile = path.join(ca.dir, 'apple.pem');
    fs.writeFileSync(goodFile, chainOf(ca.issue(csr.json.pem)));
    const imported = await op(
      'reader-cert',
      'import',
      '--env',
      'production',
      '--route',
      'rte_apple_us_mdl',
      goodFile,
    );
    expect(imported.stderr).toBe('');
    expect(imported.json).toMatchObject({
      route: 'rte_apple_us_mdl',
      environment: 'production',
      retired: null,
    });
    const listed = await op('reader-cert', 'list');
    const row = (listed.json as { id: string; days_left: number; not_after: string }[]).find(
      (c) => c.id === imported.json.id,
    );
    expect(row?.days_left).toBeGreaterThanOrEqual(18);
    const retired = await op('reader-cert', 'retire', '--id', imported.json.id);
    expect(retired.json.retired).not.toBeNull();
    const audit = await t.svc.ds.getRepository(AccountAuditEntity).findBy({ actorId: 'ops-dana' });
    expect(audit.map((a) => a.action).sort()).toEqual([
      'reader_cert.csr',
      'reader_cert.import',
      'reader_cert.retire',
    ]);
  }, 300_000);
});
