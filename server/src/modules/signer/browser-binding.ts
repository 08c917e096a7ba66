// Owns "is this request's browser the bound browser" (the one place that decides it; the hosted transport and
// the signer's receipt routes both ask here). Opening the hosted page gives a browser a server-issued cookie
// `<random>.<HMAC(key, random)>`; a value the server did not issue is never accepted, so a client can never
// choose its binding. Start binds the session to SHA-256(session id, cookie): a Start whose answer was lost
// finds its own binding when the same browser retries, and another browser (another cookie) cannot act.
import { createHmac, randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { Clock } from '../../common/clock';
import { digestEqual } from '../../common/crypto';
import { randomToken, sha256Hex } from '../../common/ids';
import { isUniqueViolation } from '../../db/data-source';
import type { KeySealer } from '../kms/key-sealer';
import { ServiceSecretEntity } from '../session/service-secret.entity';

export const BROWSER_COOKIE_NAME = 'svc_browser';
const SECRET_NAME = 'browser_binding_v1';
const COOKIE_SHAPE = /^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$/;

/** MACs remembered by nonce (a few requests per browser within a session; oldest out beyond this). */
const MAC_CACHE_MAX = 4096;

export class BrowserBinding {
  /**
   * The MAC of each recently seen nonce. A page's read verifies its cookie twice and a session's run reads it
   * about eight times; an HMAC's set-up is most of a verification's CPU. The nonce is the key of the lookup
   * (whose timing may say whether a nonce was seen): a nonce alone grants nothing, since the MAC that goes
   * with it is what only this service can compute, and that comparison stays constant-time.
   */
  private readonly macs = new Map<string, string>();

  constructor(private readonly key: Buffer) {}

  /** A fresh server-issued browser cookie value. */
  issue(): string {
    const nonce = randomToken(32);
    return `${nonce}.${this.macOf(nonce)}`;
  }

  /** The cookie value if this service issued it; anything else (absent, malformed, forged) is undefined. */
  verified(cookie: unknown): string | undefined {
    if (typeof cookie !== 'string' || !COOKIE_SHAPE.test(cookie)) return undefined;
    const [nonce, mac] = cookie.split('.') as [string, string];
    // Both MACs are 43 characters (the shape above): a single constant-time compare, no HMAC round per side
    // (safeEqual's), which three reads of the binding per request paid for.
    return digestEqual(mac, this.macOf(nonce)) ? cookie : undefined;
  }

  /** mac(nonce), remembered (MAC_CACHE_MAX). */
  private macOf(nonce: string): string {
    let m = this.macs.get(nonce);
    if (m === undefined) {
      m = this.mac(nonce);
      if (this.macs.size >= MAC_CACHE_MAX) this.macs.delete(this.macs.keys().next().value as string);
      this.macs.set(nonce, m);
    }
    return m;
  }

  /** The binding stored on a session started by the browser holding `cookie` (a verified value). */
  bindingHash(sessionId: string, cookie: string): string {
    return sha256Hex(`${sessionId}:${cookie}`);
  }

  /**
   * Is the browser presenting `cookie` the one bound to this session? False for an unbound session, and for
   * any cookie the service did not issue. Constant-time on the stored hash.
   */
  isBoundBrowser(session: { id: string; bindingHash: string | null }, cookie: unknown): boolean {
    const valid = this.verified(cookie);
    if (!session.bindingHash || !valid) return false;
    // hex SHA-256 on both sides: lengths are public
    return digestEqual(session.bindingHash, this.bindingHash(session.id, valid));
  }

  /** The one decision "this request's browser is the bound one", for the signer's page and its receipts. */
  bindingOf(
    session: { id: string; bindingHash: string | null },
    cookie: unknown,
  ): 'none' | 'this_browser' | 'other_browser' {
    if (!session.bindingHash) return 'none';
    return this.isBoundBrowser(session, cookie) ? 'this_browser' : 'other_browser';
  }

  private mac(nonce: string): string {
    return createHmac('sha256', this.key).update(`browser-binding:v1:${nonce}`).digest('base64url');
  }
}

/**
 * The shared MAC key: created by the first node that finds none (a racing node reads the winner's). Stored
 * sealed under the service master key (AES-256-GCM, like the verifier's private keys), so a copy of the
 * database alone cannot forge browser cookies. A key stored in clear by an earlier version is sealed in place.
 */
export async function loadBrowserBinding(
  ds: DataSource,
  clock: Clock,
  sealer: KeySealer,
): Promise<BrowserBinding> {
  const repo = ds.getRepository(ServiceSecretEntity);
  let row = await repo.findOneBy({ name: SECRET_NAME });
  if (!row) {
    try {
      await repo.insert({
        name: SECRET_NAME,
        value: sealer.seal(SEAL_AAD, randomBytes(32)),
        createdAt: clock.now(),
      });
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
    }
    row = await repo.findOneByOrFail({ name: SECRET_NAME });
  }
  if (isSealed(row.value)) {
    try {
      return new BrowserBinding(sealer.open(SEAL_AAD, row.value));
    } catch {
      throw new Error(
        'The browser-binding key in the database was sealed under another master key: every node of one ' +
          'database must share DATA_DIR/local-kms-master.key (see README, Scaling out).',
      );
    }
  }
  const key = Buffer.from(row.value, 'base64url');
  // guarded: only the clear value this node read is replaced (a racing node's seal of it is equivalent)
  await repo.update({ name: SECRET_NAME, value: row.value }, { value: sealer.seal(SEAL_AAD, key) });
  return new BrowserBinding(key);
}

const SEAL_AAD = `service_secret:${SECRET_NAME}`;
const isSealed = (value: string) => value.startsWith('v1.');
