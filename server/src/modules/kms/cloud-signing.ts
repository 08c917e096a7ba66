// Owns what the cloud KMS providers (GCP, AWS) share: the audit signature comes from the cloud, everything
// else stays local. A cloud key version used to sign is recorded in kms_key_version (no private material:
// private_key_enc holds `external:<provider>`), so the audit JWKS keeps every key version that ever signed
// until it is retired, across restarts, nodes and rotations. Rotation = configuring a new key version
// (GCP asymmetric keys have no primary version, AWS asymmetric keys no versions at all): on first use the new
// one becomes `enabled` and the previous ones `retained`. Evidence encryption keeps using the local provider.
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../../common/clock';
import { isUniqueViolation } from '../../db/data-source';
import type {
  AuditJwk,
  DataKey,
  KmsEncryptionPurpose,
  KmsProvider,
  KmsPurpose,
  KmsSigningPurpose,
} from './kms';
import { KmsKeyVersionEntity } from './kms-key-version.entity';

/** The two calls a cloud KMS adapter makes for the audit key. */
export interface CloudSigner {
  readonly provider: 'gcp' | 'aws';
  /** The configured key version: its exact resource name (GCP) or key ARN (AWS) and its public key. */
  describe(): Promise<{ kid: string; spki: Buffer }>;
  /** ECDSA P-256 over the 32-byte digest, ASN.1 DER. */
  sign(kid: string, digest: Uint8Array): Promise<Uint8Array>;
}

const isDuplicateKey = isUniqueViolation;

/** Public JWK (x, y) of a P-256 SubjectPublicKeyInfo; anything else is a configuration error. */
export function p256JwkFromSpki(spki: Buffer): { x: string; y: string } {
  const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  const jwk = key.export({ format: 'jwk' }) as JsonWebKey;
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.x || !jwk.y)
    throw new Error('the configured KMS key is not an EC P-256 signing key');
  return { x: jwk.x, y: jwk.y };
}

export class CloudSigningKms implements KmsProvider {
  private readonly ds: DataSource;
  private readonly clock: Clock;
  private readonly signer: CloudSigner;
  private readonly local: KmsProvider;
  private current: Promise<string> | undefined;

  constructor(deps: { ds: DataSource; clock: Clock; signer: CloudSigner; local: KmsProvider }) {
    this.ds = deps.ds;
    this.clock = deps.clock;
    this.signer = deps.signer;
    this.local = deps.local;
  }

  private get repo() {
    return this.ds.getRepository(KmsKeyVersionEntity);
  }

  async currentKeyVersion(purpose: KmsPurpose, m?: EntityManager): Promise<string> {
    if (purpose !== 'audit-signing') return this.local.currentKeyVersion(purpose, m);
    // Once per process: the configured version does not change while the process runs (registered at start;
    // a retry after a failure runs in the caller's transaction, ADR 0044).
    this.current ??= this.register(m).catch((e: unknown) => {
      this.current = undefined;
      throw e;
    });
    return this.current;
  }

  /** Records the configured key version (public key from the cloud) and makes it the one that signs. */
  private async register(m?: EntityManager): Promise<string> {
    const repo = (m ?? this.ds.manager).getRepository(KmsKeyVersionEntity);
    const { kid, spki } = await this.signer.describe();
    const pub = p256JwkFromSpki(spki);
    const existing = await repo.findOneBy({ kid });
    if (existing?.state === 'retired') throw new Error('the configured KMS key version has been retired');
    if (!existing) {
      try {
        await repo.insert({
          kid,
          purpose: 'audit-signing',
          algorithm: 'ES256',
          publicJwk: JSON.stringify({ kty: 'EC', crv: 'P-256', ...pub }),
          privateKeyEnc: `external:${this.signer.provider}`,
          state: 'enabled',
          createdAt: this.clock.now(),
        });
      } catch (e) {
        if (!isDuplicateKey(e)) throw e; // another node registered it first
      }
    } else if (existing.state !== 'enabled') {
      await repo.update({ kid }, { state: 'enabled' });
    }
    // Every other signing version stays verifiable (JWKS) but no longer signs here.
    await (m ?? this.ds.manager)
      .createQueryBuilder()
      .update(KmsKeyVersionEntity)
      .set({ state: 'retained' })
      .where('purpose = :purpose AND state = :state AND kid <> :kid', {
        purpose: 'audit-signing',
        state: 'enabled',
        kid,
      })
      .execute();
    return kid;
  }

  async signDigest(
    kid: string,
    digest: Uint8Array,
    m?: EntityManager,
    message?: Uint8Array,
  ): Promise<Uint8Array> {
    if (digest.length !== 32) throw new Error('digest must be 32 bytes (SHA-256)');
    if (kid === (await this.currentKeyVersion('audit-signing', m))) return this.signer.sign(kid, digest);
    // The receipt seal has a key of its own (ADR 0047), held by the local provider like the evidence keys.
    if (kid === (await this.local.currentKeyVersion('receipt-seal', m)))
      return this.local.signDigest(kid, digest, m, message);
    throw new Error('key version is not available for signing');
  }

  async publicJwks(purpose: KmsSigningPurpose): Promise<AuditJwk[]> {
    const rows = await this.repo.find({ where: { purpose } });
    // Newest first (the one that signs now leads), then by registration time.
    return rows
      .filter((r) => r.state !== 'retired')
      .sort(
        (a, b) =>
          Number(b.state === 'enabled') - Number(a.state === 'enabled') ||
          b.createdAt.getTime() - a.createdAt.getTime(),
      )
      .map((r) => {
        const pub = JSON.parse(r.publicJwk) as { x: string; y: string };
        return { kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: r.kid, x: pub.x, y: pub.y };
      });
  }

  /** Removes a key version from the JWKS for good (records it signed no longer verify against the JWKS). */
  async retire(kid: string): Promise<void> {
    const res = await this.repo.update({ kid }, { state: 'retired' });
    if (!res.affected) throw new Error('unknown key version');
    if (this.current && (await this.current.catch(() => undefined)) === kid) this.current = undefined;
  }

  generateDataKey(purpose: KmsEncryptionPurpose, m?: EntityManager): Promise<DataKey> {
    return this.local.generateDataKey(purpose, m);
  }

  decryptDataKey(kid: string, wrapped: string, m?: EntityManager): Promise<Uint8Array> {
    return this.local.decryptDataKey(kid, wrapped, m);
  }
}
