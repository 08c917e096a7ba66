// The receipt seal's own key (ADR 0047: one key, one purpose), on real MariaDB through the KMS abstraction as
// the service builds it: the local provider, and the cloud provider (GCP/AWS) whose only stand-in is the cloud
// signer itself (the true edge: a P-256 key in this process). The seal key is a separate version under
// `receipt-seal`, published with its purpose beside the audit key; the audit service never seals with the audit
// key; rotation keeps the old seal key published.
import { generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MigratedTestDatabase, migratedTestDatabase } from '../../server/src/app/test-database';
import { ManualClock } from '../../server/src/common/clock';
import { AuditService } from '../../server/src/modules/audit/audit.service';
import { type CloudSigner, CloudSigningKms } from '../../server/src/modules/kms/cloud-signing';
import type { KmsProvider } from '../../server/src/modules/kms/kms';
import { LocalKmsProvider } from '../../server/src/modules/kms/local-kms.provider';

/** A key ring per provider under test (each has its own master key). */
const ring = (r: string) => `projects/test/locations/global/keyRings/${r}/cryptoKeys/audit-signing`;
const clock = new ManualClock(new Date('2026-11-27T00:00:00Z'));
const pdf = Buffer.from('%PDF-1.7\n% a receipt, zeroed for its seal\n');

/** A cloud KMS key version as GCP/AWS expose it: its name, its public key, and DER signatures of digests. */
function fakeCloudSigner(): CloudSigner {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid = 'projects/p/locations/l/keyRings/r/cryptoKeys/audit/cryptoKeyVersions/1';
  return {
    provider: 'gcp',
    describe: async () => ({ kid, spki: publicKey.export({ type: 'spki', format: 'der' }) }),
    // the digest is signed as is (no second hash): ECDSA with a null digest over the 32 bytes
    sign: async (_kid, digest) => sign(null, Buffer.from(digest), { key: privateKey, dsaEncoding: 'der' }),
  };
}

describe('the receipt seal has a key of its own', () => {
  let db: MigratedTestDatabase;
  let ds: MigratedTestDatabase['ds'];
  beforeAll(async () => {
    db = await migratedTestDatabase('seal_key');
    ds = db.ds;
  });
  afterAll(async () => {
    await db?.drop();
  });

  const providers: Array<[string, () => { kms: KmsProvider; local: LocalKmsProvider }]> = [
    [
      'local',
      () => {
        const local = new LocalKmsProvider({ ds, keyRing: ring('a'), masterKey: randomBytes(32), clock });
        return { kms: local, local };
      },
    ],
    [
      'cloud (GCP/AWS)',
      () => {
        const local = new LocalKmsProvider({ ds, keyRing: ring('b'), masterKey: randomBytes(32), clock });
        return { kms: new CloudSigningKms({ ds, clock, signer: fakeCloudSigner(), local }), local };
      },
    ],
  ];

  for (const [name, make] of providers) {
    it(`${name}: seals with a receipt-seal key, published with its purpose; rotation keeps the old one`, async () => {
      const { kms, local } = make();
      const audit = new AuditService({ ds, kms });
      const auditKid = await kms.currentKeyVersion('audit-signing');
      const sealKid = await audit.sealKid();
      expect(sealKid).not.toBe(auditKid);
      expect(sealKid).toContain('receipt-seal');

      const der = await audit.sealPdf(sealKid, pdf);
      const jwks = await audit.jwks();
      const seal = jwks.keys.find((k) => k.kid === sealKid);
      expect(seal?.purpose).toBe('receipt-seal');
      expect(jwks.keys.find((k) => k.kid === auditKid)?.purpose).toBe('audit-signing');
      const key = { key: { kty: 'EC', crv: 'P-256', x: seal?.x, y: seal?.y }, format: 'jwk' } as const;
      expect(verify('sha256', pdf, { ...key, dsaEncoding: 'der' }, Buffer.from(der))).toBe(true);

      // one key, one purpose: the audit key never seals, and only PDF bytes are sealed
      await expect(audit.sealPdf(auditKid, pdf)).rejects.toThrow('only with a receipt-seal key');
      await expect(audit.sealPdf(sealKid, Buffer.from('{"a":1}'))).rejects.toThrow(
        'only a PDF file is sealed',
      );

      // rotation: a new version seals from now on, the old one stays in the key set
      const next = await local.rotate('receipt-seal');
      expect(await audit.sealKid()).toBe(next);
      const after = (await audit.jwks()).keys.filter((k) => k.purpose === 'receipt-seal').map((k) => k.kid);
      expect(after).toEqual(expect.arrayContaining([sealKid, next]));
    });
  }
});
