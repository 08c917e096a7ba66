import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MigratedTestDatabase, migratedTestDatabase } from '../../app/test-database';
import { ManualClock } from '../../common/clock';
import type { AuditJwk } from './kms';
import { KmsKeyVersionEntity } from './kms-key-version.entity';
import { LocalKmsProvider, loadOrCreateLocalMasterKey } from './local-kms.provider';

const RING = 'projects/test/locations/global/keyRings/audit/cryptoKeys/audit-signing';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kms-test-'));
const pem = (jwk: AuditJwk) =>
  createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' });

/** `openssl pkeyutl -verify` over the raw 32-byte digest: true when openssl accepts the signature. */
function opensslVerifiesDigest(jwk: AuditJwk, digest: Uint8Array, sig: Uint8Array): boolean {
  const dir = fs.mkdtempSync(path.join(tmp, 'ossl-'));
  fs.writeFileSync(path.join(dir, 'key.pem'), pem(jwk));
  fs.writeFileSync(path.join(dir, 'digest.bin'), digest);
  fs.writeFileSync(path.join(dir, 'sig.der'), sig);
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
  return spawnSync('/usr/bin/openssl', args, { cwd: dir }).status === 0;
}

describe('local KMS provider', () => {
  let db: MigratedTestDatabase;
  let ds: DataSource;
  let kms: LocalKmsProvider;
  const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
  const masterKey = randomBytes(32);

  beforeAll(async () => {
    db = await migratedTestDatabase('kms');
    ds = db.ds;
    kms = new LocalKmsProvider({ ds, keyRing: RING, masterKey, clock });
  });
  afterAll(async () => {
    await db?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('creates the master key file once, mode 0600, and reads the same key back', () => {
    const dir = path.join(tmp, 'data');
    const key = loadOrCreateLocalMasterKey(dir);
    const file = path.join(dir, 'local-kms-master.key');
    expect(key).toHaveLength(32);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(loadOrCreateLocalMasterKey(dir).equals(key)).toBe(true);
  });

  it('creates version 1 on first use, once, even when two processes race', async () => {
    // eight providers (as eight processes would) asking for the first version at once
    const others = Array.from(
      { length: 7 },
      () => new LocalKmsProvider({ ds, keyRing: RING, masterKey, clock }),
    );
    const kids = await Promise.all([kms, ...others].map((p) => p.currentKeyVersion('audit-signing')));
    expect(new Set(kids)).toEqual(new Set([`${RING}/cryptoKeyVersions/1`]));
    expect(await ds.getRepository(KmsKeyVersionEntity).count()).toBe(1);
    const jwks = await kms.publicJwks('audit-signing');
    expect(jwks).toEqual([
      {
        kty: 'EC',
        crv: 'P-256',
        alg: 'ES256',
        use: 'sig',
        kid: kids[0],
        x: expect.any(String),
        y: expect.any(String),
      },
    ]);
  });

  it('signs the digest as given (no second hash): openssl pkeyutl verifies the raw digest', async () => {
    const kid = await kms.currentKeyVersion('audit-signing');
    const [jwk] = await kms.publicJwks('audit-signing');
    const message = Buffer.from('{"a":1}');
    const digest = createHash('sha256').update(message).digest();
    const sig = await kms.signDigest(kid, digest);
    expect(opensslVerifiesDigest(jwk!, digest, sig)).toBe(true);
    // Equivalent: ES256 over the message; and openssl's own DER parser accepts the encoding.
    expect(verify('sha256', message, { key: pem(jwk!), dsaEncoding: 'der' }, sig)).toBe(true);
    expect(
      execFileSync('/usr/bin/openssl', ['asn1parse', '-inform', 'DER'], { input: sig }).toString(),
    ).toMatch(/SEQUENCE[\s\S]*INTEGER[\s\S]*INTEGER/);
    const other = Buffer.from(digest);
    other[0] ^= 1;
    expect(opensslVerifiesDigest(jwk!, other, sig)).toBe(false);
  });

  it('signs with node:crypto when given the message: the same digest verifies, with the published key', async () => {
    const kid = await kms.currentKeyVersion('audit-signing');
    const [jwk] = await kms.publicJwks('audit-signing');
    for (let i = 0; i < 20; i++) {
      const message = randomBytes(40 + i);
      const digest = createHash('sha256').update(message).digest();
      const sig = await kms.signDigest(kid, digest, undefined, message);
      // openssl over the raw digest (a few: each is a process), node over the message (all)
      if (i < 3) expect(opensslVerifiesDigest(jwk!, digest, sig)).toBe(true);
      expect(verify('sha256', message, { key: pem(jwk!), dsaEncoding: 'der' }, sig)).toBe(true);
      const other = Buffer.from(message);
      other[0] ^= 1;
      expect(verify('sha256', other, { key: pem(jwk!), dsaEncoding: 'der' }, sig)).toBe(false);
    }
  });

  it('produces valid DER for every r and s shape (high bit set, leading zeros)', async () => {
    const kid = await kms.currentKeyVersion('audit-signing');
    const [jwk] = await kms.publicJwks('audit-signing');
    const key = pem(jwk!);
    for (let i = 0; i < 300; i++) {
      const message = randomBytes(16);
      const sig = await kms.signDigest(kid, createHash('sha256').update(message).digest());
      expect(verify('sha256', message, { key, dsaEncoding: 'der' }, sig)).toBe(true);
    }
  });

  it('keeps the private key encrypted and out of every API', async () => {
    const rows = await ds.getRepository(KmsKeyVersionEntity).find();
    const jwks = await kms.publicJwks('audit-signing');
    expect(JSON.stringify(jwks)).not.toMatch(/"d"/);
    for (const r of rows) {
      expect(r.privateKeyEnc).toMatch(/^v1\./);
      expect(JSON.parse(r.publicJwk)).not.toHaveProperty('d');
    }
    const wrongMaster = new LocalKmsProvider({ ds, keyRing: RING, masterKey: randomBytes(32), clock });
    await expect(wrongMaster.signDigest(rows[0]!.kid, randomBytes(32))).rejects.toThrow(
      /unable to authenticate/,
    );
  });

  it('rotation adds a version that signs next; the old one stays in the JWKS until retired', async () => {
    const v1 = await kms.currentKeyVersion('audit-signing');
    const v2 = await kms.rotate('audit-signing');
    expect(v2).toBe(`${RING}/cryptoKeyVersions/2`);
    expect(await kms.currentKeyVersion('audit-signing')).toBe(v2);
    expect((await kms.publicJwks('audit-signing')).map((k) => k.kid)).toEqual([v2, v1]);
    const digest = randomBytes(32);
    const [jwk2] = await kms.publicJwks('audit-signing');
    expect(opensslVerifiesDigest(jwk2!, digest, await kms.signDigest(v2, digest))).toBe(true);

    await kms.retire(v1);
    expect((await kms.publicJwks('audit-signing')).map((k) => k.kid)).toEqual([v2]);
    await expect(kms.signDigest(v1, digest)).rejects.toThrow('key version is not available for signing');
  });

  it('envelope keys: fresh data keys wrapped by a separate evidence key that never signs nor shows in the JWKS', async () => {
    const a = await kms.generateDataKey('evidence-encryption');
    const b = await kms.generateDataKey('evidence-encryption');
    expect(a.kid).toBe(
      'projects/test/locations/global/keyRings/audit/cryptoKeys/evidence-encryption/cryptoKeyVersions/1',
    );
    expect(b.kid).toBe(a.kid);
    expect(a.plaintext).toHaveLength(32);
    expect(Buffer.from(a.plaintext).equals(Buffer.from(b.plaintext))).toBe(false);
    expect(a.wrapped).not.toContain(Buffer.from(a.plaintext).toString('base64url'));
    expect(Buffer.from(await kms.decryptDataKey(a.kid, a.wrapped)).equals(Buffer.from(a.plaintext))).toBe(
      true,
    );
    // a wrapped key does not open under another kid, nor with a changed byte
    const auditKid = await kms.currentKeyVersion('audit-signing');
    await expect(kms.decryptDataKey(auditKid, a.wrapped)).rejects.toThrow(/unable to authenticate/);
    const parts = a.wrapped.split('.');
    parts[3] = `${parts[3]?.startsWith('A') ? 'B' : 'A'}${parts[3]?.slice(1)}`;
    await expect(kms.decryptDataKey(a.kid, parts.join('.'))).rejects.toThrow(/unable to authenticate/);
    // the evidence key cannot sign and is not an audit key
    await expect(kms.signDigest(a.kid, randomBytes(32))).rejects.toThrow(
      'key version is not available for signing',
    );
    expect((await kms.publicJwks('audit-signing')).map((k) => k.kid)).not.toContain(a.kid);
    const row = await ds.getRepository(KmsKeyVersionEntity).findOneByOrFail({ kid: a.kid });
    expect(row).toMatchObject({ purpose: 'evidence-encryption', algorithm: 'AES256_GCM', publicJwk: '{}' });
  });
});
