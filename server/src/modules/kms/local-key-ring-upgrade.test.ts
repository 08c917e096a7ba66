// The local key ring's default changed from a name that imitated a Google Cloud resource
// (`projects/local/…`) to `local/cryptoKeys/…` (ADR 0048). A database of an earlier release keeps its old key
// versions: after the upgrade the new ring signs, while records and evidence under the old kids still verify
// and open, because kids are looked up by their exact value.
import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MigratedTestDatabase, migratedTestDatabase } from '../../app/test-database';
import { ManualClock } from '../../common/clock';
import { configFrom } from '../../config/config';
import { LocalKmsProvider } from './local-kms.provider';

const OLD_DEFAULT = 'projects/local/locations/global/keyRings/service-audit/cryptoKeys/audit-signing';

describe('local key ring upgrade', () => {
  let db: MigratedTestDatabase;
  let ds: DataSource;
  const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
  const masterKey = randomBytes(32);

  beforeAll(async () => {
    db = await migratedTestDatabase('kms_ring');
    ds = db.ds;
  });
  afterAll(async () => db?.drop());

  it('signs under the new default; old kids stay in the key set, verify and open', async () => {
    const before = new LocalKmsProvider({ ds, keyRing: OLD_DEFAULT, masterKey, clock });
    const oldKid = await before.currentKeyVersion('audit-signing');
    const digest = createHash('sha256').update('a record of an earlier release').digest();
    const oldSig = await before.signDigest(oldKid, digest);
    const oldData = await before.generateDataKey('evidence-encryption');

    const ring = configFrom({}).kmsKeyRing;
    expect(ring).toBe('local/cryptoKeys/audit-signing');
    const after = new LocalKmsProvider({ ds, keyRing: ring, masterKey, clock });
    const kid = await after.currentKeyVersion('audit-signing');
    expect(kid).toBe('local/cryptoKeys/audit-signing/cryptoKeyVersions/1');
    expect(await after.currentKeyVersion('evidence-encryption')).toBe(
      'local/cryptoKeys/evidence-encryption/cryptoKeyVersions/1',
    );
    const jwks = await after.publicJwks('audit-signing');
    expect(jwks.map((k) => k.kid).sort()).toEqual([kid, oldKid].sort());
    const oldJwk = jwks.find((k) => k.kid === oldKid);
    const key = createPublicKey({ key: oldJwk as never, format: 'jwk' });
    // an ES256 signature over SHA-256 of the record: node hashes the record and checks it against the old key
    expect(
      verify('sha256', Buffer.from('a record of an earlier release'), { key, dsaEncoding: 'der' }, oldSig),
    ).toBe(true);
    expect(Buffer.from(await after.decryptDataKey(oldData.kid, oldData.wrapped))).toEqual(
      Buffer.from(oldData.plaintext),
    );
  });
});
