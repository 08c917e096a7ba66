// Owns webhook signing secrets at rest (ADR 0028): `webhook_endpoint.secret` and `.previous_secret` hold
// `v1.<iv>.<tag>.<ciphertext>`, AES-256-GCM under the service master key (the KeySealer that seals the
// browser-binding key and the verifier keys), with the endpoint id as AAD so a sealed value cannot be moved to
// another tenant's row. The clear `whsec_…` value exists only in the answer that issues it and in memory while
// the relay signs. Secrets stored in clear by an earlier version are sealed at start-up (sealClearWebhookSecrets).
import type { DataSource } from 'typeorm';
import { transactionWithRetry } from '../../db/data-source';
import type { KeySealer } from '../kms/key-sealer';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

const aadFor = (endpointId: string) => `webhook_endpoint:${endpointId}:signing-secret`;
/** Sealed values start with `v1.`; a clear secret (`whsec_` + base64, or older base64url) never has a dot. */
export const isSealedSecret = (value: string): boolean => value.startsWith('v1.');
/** Opened secrets kept in memory (the relay signs every attempt; a tenant's secret changes rarely). */
const CACHE_MAX = 2_000;

export class WebhookSecretBox {
  private readonly cache = new Map<string, string>();

  constructor(private readonly sealer: KeySealer) {}

  /** The stored form of `secret` for the endpoint `endpointId`. */
  seal(endpointId: string, secret: string): string {
    return this.sealer.seal(aadFor(endpointId), Buffer.from(secret, 'utf8'));
  }

  /**
   * The clear secret of a stored value. Throws when the value was sealed under another master key or for
   * another endpoint; a clear value (never expected after start-up) is refused rather than used.
   */
  open(endpointId: string, stored: string): string {
    const key = `${endpointId} ${stored}`;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    if (!isSealedSecret(stored)) throw new Error('webhook signing secret is not sealed');
    const clear = this.sealer.open(aadFor(endpointId), stored).toString('utf8');
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(key, clear);
    return clear;
  }
}

export const WRONG_MASTER_KEY_MESSAGE =
  'The webhook signing secrets in the database were sealed under another master key: every node of one ' +
  'database must share the master key file in DATA_DIR (master-key.wrapped.json, or local-kms-master.key in development; see README, Keys and Scaling out).';

/**
 * Start-up, before any relay or API runs: seals every secret still stored in clear (one transaction, each
 * update guarded on the clear value read, so a racing node's seal is not overwritten and a second run changes
 * nothing), then opens one sealed secret to prove this node's master key is the one they were sealed under.
 * A node with another master key refuses to start (WRONG_MASTER_KEY_MESSAGE). Returns how many were sealed.
 */
export async function sealClearWebhookSecrets(ds: DataSource, box: WebhookSecretBox): Promise<number> {
  const sealed = await transactionWithRetry(ds, async (m) => {
    const repo = m.getRepository(WebhookEndpointEntity);
    const rows = await repo.find({ select: { id: true, secret: true, previousSecret: true } });
    let n = 0;
    for (const r of rows) {
      const secretClear = !isSealedSecret(r.secret);
      const previousClear = r.previousSecret !== null && !isSealedSecret(r.previousSecret);
      if (!secretClear && !previousClear) continue;
      const res = await repo.update(
        { id: r.id, secret: r.secret },
        {
          ...(secretClear ? { secret: box.seal(r.id, r.secret) } : {}),
          ...(previousClear ? { previousSecret: box.seal(r.id, r.previousSecret as string) } : {}),
        },
      );
      n += res.affected ?? 0;
    }
    return n;
  });
  const probe = await ds
    .getRepository(WebhookEndpointEntity)
    .find({ select: { id: true, secret: true }, order: { id: 'ASC' }, take: 1 });
  for (const r of probe) {
    try {
      box.open(r.id, r.secret);
    } catch {
      throw new Error(WRONG_MASTER_KEY_MESSAGE);
    }
  }
  return sealed;
}
