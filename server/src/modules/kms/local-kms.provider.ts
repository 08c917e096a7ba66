// Owns the local KMS provider: versioned P-256 audit-signing keys in table kms_key_version, private keys
// encrypted with AES-256-GCM under a local master key (file in DATA_DIR), kids shaped like cloud key-version
// resource names (`<keyRing>/cryptoKeyVersions/<n>`). No API returns a private key.
import {
  createCipheriv,
  createDecipheriv,
  generateKeyPairSync,
  type JsonWebKey,
  randomBytes,
} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import type { Clock } from '../../common/clock';
import { signDigestP256 } from './ecdsa-p256';
import type { AuditJwk, KmsProvider, KmsPurpose } from './kms';
import { KmsKeyVersionEntity } from './kms-key-version.entity';

const MASTER_KEY_FILE = 'local-kms-master.key';

/** Reads `<dataDir>/local-kms-master.key` (base64, 32 bytes), creating it with mode 0600 when absent. */
export function loadOrCreateLocalMasterKey(dataDir: string): Buffer {
  const file = path.join(dataDir, MASTER_KEY_FILE);
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    // 'wx' fails when the file exists, so two processes starting together end up with the same key.
    fs.writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
  return key;
}

const versionOf = (kid: string): number => Number(kid.slice(kid.lastIndexOf('/') + 1));

function isDuplicateKey(e: unknown): boolean {
  const err = e as { code?: string; driverError?: { code?: string } };
  const code = err?.driverError?.code ?? err?.code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT';
}

export class LocalKmsProvider implements KmsProvider {
  private readonly ds: DataSource;
  private readonly keyRing: string;
  private readonly masterKey: Buffer;
  private readonly clock: Clock;
  /** Decrypted private scalars by kid; a key version's key material never changes. */
  private readonly scalars = new Map<string, Buffer>();

  constructor(deps: { ds: DataSource; keyRing: string; masterKey: Buffer; clock: Clock }) {
    if (deps.masterKey.length !== 32) throw new Error('the local KMS master key must be 32 bytes');
    this.ds = deps.ds;
    this.keyRing = deps.keyRing;
    this.masterKey = deps.masterKey;
    this.clock = deps.clock;
  }

  private get repo() {
    return this.ds.getRepository(KmsKeyVersionEntity);
  }

  async currentKeyVersion(purpose: KmsPurpose): Promise<string> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await this.enabled(purpose);
      if (current) return current.kid;
      try {
        return await this.createVersion(purpose);
      } catch (e) {
        // Another process created the same version first: read it back.
        if (!isDuplicateKey(e)) throw e;
      }
    }
    throw new Error('could not establish an audit signing key version');
  }

  /** Adds a version that signs from now on; the previous one stays in the JWKS as 'retained'. */
  async rotate(purpose: KmsPurpose): Promise<string> {
    const kid = await this.createVersion(purpose);
    await this.ds
      .createQueryBuilder()
      .update(KmsKeyVersionEntity)
      .set({ state: 'retained' })
      .where('purpose = :purpose AND state = :state AND kid <> :kid', { purpose, state: 'enabled', kid })
      .execute();
    return kid;
  }

  /** Removes a version from the JWKS for good; records signed with it no longer verify against the JWKS. */
  async retire(kid: string): Promise<void> {
    const res = await this.repo.update({ kid }, { state: 'retired' });
    if (!res.affected) throw new Error('unknown key version');
    this.scalars.delete(kid);
  }

  async signDigest(kid: string, digest: Uint8Array): Promise<Uint8Array> {
    if (digest.length !== 32) throw new Error('digest must be 32 bytes (SHA-256)');
    const row = await this.repo.findOneBy({ kid });
    // A retained version may still sign (a record started just before a rotation): it is in the JWKS.
    // A retired one may not: its signatures could not be verified.
    if (!row || row.state === 'retired') throw new Error('key version is not available for signing');
    let d = this.scalars.get(kid);
    if (!d) {
      d = this.decrypt(row);
      this.scalars.set(kid, d);
    }
    return signDigestP256(d, digest);
  }

  async publicJwks(purpose: KmsPurpose): Promise<AuditJwk[]> {
    const rows = await this.repo.find({ where: { purpose } });
    return rows
      .filter((r) => r.state !== 'retired')
      .sort((a, b) => versionOf(b.kid) - versionOf(a.kid))
      .map((r) => {
        const pub = JSON.parse(r.publicJwk) as { x: string; y: string };
        return { kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: r.kid, x: pub.x, y: pub.y };
      });
  }

  private async enabled(purpose: KmsPurpose): Promise<KmsKeyVersionEntity | null> {
    const rows = await this.repo.find({ where: { purpose, state: 'enabled' } });
    return rows.sort((a, b) => versionOf(b.kid) - versionOf(a.kid))[0] ?? null;
  }

  /** Inserts version max+1 of this key ring; the primary key on kid makes concurrent creators collide. */
  private async createVersion(purpose: KmsPurpose): Promise<string> {
    const prefix = `${this.keyRing}/cryptoKeyVersions/`;
    const existing = await this.repo.find({ where: { purpose }, select: { kid: true } });
    const max = Math.max(0, ...existing.filter((r) => r.kid.startsWith(prefix)).map((r) => versionOf(r.kid)));
    const kid = `${prefix}${max + 1}`;
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = privateKey.export({ format: 'jwk' }) as JsonWebKey;
    await this.repo.insert({
      kid,
      purpose,
      algorithm: 'ES256', // cloud name: EC_SIGN_P256_SHA256 (column is 16 chars)
      publicJwk: JSON.stringify({ kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }),
      privateKeyEnc: this.encrypt(kid, Buffer.from(jwk.d as string, 'base64url')),
      state: 'enabled',
      createdAt: this.clock.now(),
    });
    return kid;
  }

  /** `v1.<iv>.<tag>.<ciphertext>` (base64url); the kid is the AAD, so a ciphertext cannot move to another row. */
  private encrypt(kid: string, d: Buffer): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.masterKey, iv);
    c.setAAD(Buffer.from(kid, 'utf8'));
    const ct = Buffer.concat([c.update(d), c.final()]);
    return ['v1', iv, c.getAuthTag(), ct]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  private decrypt(row: KmsKeyVersionEntity): Buffer {
    const [v, iv, tag, ct] = row.privateKeyEnc.split('.');
    if (v !== 'v1' || !iv || !tag || !ct) throw new Error('unreadable key version');
    const dc = createDecipheriv('aes-256-gcm', this.masterKey, Buffer.from(iv, 'base64url'));
    dc.setAAD(Buffer.from(row.kid, 'utf8'));
    dc.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([dc.update(Buffer.from(ct, 'base64url')), dc.final()]);
  }
}
