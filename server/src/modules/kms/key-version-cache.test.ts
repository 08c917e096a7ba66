// Key versions are cached per process (ADR 0044): a node keeps signing without a database read, and a rotation or
// retirement made by another process (the operator CLI, another node) reaches it within KEY_VERSION_TTL_MS.
// Two providers on one real MariaDB database stand for two nodes.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MigratedTestDatabase, migratedTestDatabase } from '../../app/test-database';
import { ManualClock } from '../../common/clock';
import { KEY_VERSION_TTL_MS, LocalKmsProvider } from './local-kms.provider';

describe('local KMS key versions cached per node', () => {
  let db: MigratedTestDatabase;
  const clock = new ManualClock(Date.now());
  const masterKey = Buffer.alloc(32, 9);
  const node = () => new LocalKmsProvider({ ds: db.ds, keyRing: 'r/cryptoKeys/audit', masterKey, clock });

  beforeAll(async () => {
    db = await migratedTestDatabase('kmscache');
  });
  afterAll(async () => {
    await db?.close();
  });

  it('another node’s rotation applies after the TTL; its retirement stops signing after the TTL', async () => {
    const a = node();
    const b = node();
    const v1 = await a.currentKeyVersion('audit-signing'); // created (not cached: it might be rolled back)
    expect(await a.currentKeyVersion('audit-signing')).toBe(v1); // read, cached
    const digest = createHash('sha256').update('record').digest();
    await a.signDigest(v1, digest); // caches v1's row

    const v2 = await b.rotate('audit-signing');
    expect(v2).not.toBe(v1);
    // within the TTL node A still signs with v1: retained, in the JWKS, so its signatures verify
    expect(await a.currentKeyVersion('audit-signing')).toBe(v1);
    const sig = await a.signDigest(v1, digest);
    const jwk = (await b.publicJwks('audit-signing')).find((k) => k.kid === v1);
    expect(jwk).toBeDefined();
    const key = createPublicKey({ key: { ...jwk }, format: 'jwk' });
    // the signature is over the digest as given (raw-digest semantics, ADR 0003): verified over its preimage
    expect(verify('sha256', Buffer.from('record'), key, Buffer.from(sig))).toBe(true);

    clock.advance(KEY_VERSION_TTL_MS + 1);
    expect(await a.currentKeyVersion('audit-signing')).toBe(v2);

    await a.signDigest(v1, digest); // a record begun before the rotation: retained v1 read again, cached
    await b.retire(v1);
    await a.signDigest(v1, digest); // still cached: the rule is to retire only versions retained past the TTL
    clock.advance(KEY_VERSION_TTL_MS + 1);
    await expect(a.signDigest(v1, digest)).rejects.toThrow('key version is not available for signing');
    // the node's own rotation and retirement apply at once
    const v3 = await a.rotate('audit-signing');
    expect(await a.currentKeyVersion('audit-signing')).toBe(v3);
  });
});
