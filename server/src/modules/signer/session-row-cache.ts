// Owns what this node last read or wrote of a running session on the hosted page's path (issue 27, ADR 0067):
// the session row after the page's open, Start and wallet request, with the trust stamp read beside it, and
// the wallet request this node just inserted. Start and the wallet response begin from it instead of
// re-reading what this node itself wrote a moment ago. A cached row is never an answer on its own: the only
// thing an attempt may do with it is the transition whose guarded write checks it (status and version of the
// session, `open` of the request, and the trust stamp for the wallet response), and any other outcome (a
// refusal, a lost guard, a precondition that fails) throws StaleRow, after which the request runs again from
// a fresh read, exactly as it ran before this cache existed. It also keeps the page's brand from the open's read,
// so that the page after Start and after a step's completion is built without reading again what the
// transition itself just wrote (ADR 0072).
import type { Branding } from '../branding/branding.service';
import { SessionEntity } from '../session/session.entity';
import { WalletRequestEntity } from '../verification/wallet-request.entity';

/**
 * Thrown by an attempt that began from a cached row and could not finish by its guarded write: nothing of it
 * was written; the caller drops the entry and runs the request again from a fresh read.
 */
export class StaleRow extends Error {
  constructor() {
    super('the cached session row is not current');
  }
}

/** The recheck of a unit that began from a cached row: whatever the fresh row says, run again from it. */
export const staleRow = (): never => {
  throw new StaleRow();
};

/** A running session as this node last saw it, with the wallet request it inserted for the current step. */
export interface CachedSession {
  session: SessionEntity;
  /** The trust stamp read with the session (ADR 0063); undefined: not read with it. */
  stamp: string | undefined;
  request?: WalletRequestEntity;
  /**
   * The page's brand as the open's read saw it (business name, hosted page settings, relying party), kept for
   * the session's life on this node: a session's business and environment never change.
   */
  brand?: Branding & { name: string };
}

interface Entry extends CachedSession {
  until: number;
}

/**
 * A bounded map (oldest out first) whose entries live `ttlMs` at most. Entries are copied in and out, so an
 * attempt that changes its entity never changes the cache.
 */
export class SessionRowCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly max = 2048,
    private readonly ttlMs = 10 * 60_000,
  ) {}

  /** The cached session `id`, its request too when `requestId` is the one this node inserted. */
  get(id: string, nowMs: number, requestId?: unknown): CachedSession | undefined {
    const hit = this.entries.get(id);
    if (!hit) return undefined;
    if (hit.until <= nowMs) {
      this.entries.delete(id);
      return undefined;
    }
    if (requestId !== undefined && hit.request?.id !== requestId) return undefined;
    return {
      session: Object.assign(new SessionEntity(), hit.session),
      stamp: hit.stamp,
      ...(hit.request ? { request: Object.assign(new WalletRequestEntity(), hit.request) } : {}),
      ...(hit.brand ? { brand: hit.brand } : {}),
    };
  }

  /**
   * Keeps `session` as stored now (a fresh read, or the row a committed guarded write left), with the stamp
   * read beside it; the request kept with it survives only while the session's version is the same, the brand
   * (`brand`, or the one kept before) for as long as the entry.
   */
  keep(
    session: SessionEntity,
    stamp: string | undefined,
    nowMs: number,
    request?: WalletRequestEntity,
    brand?: Branding & { name: string },
  ): void {
    const before = this.entries.get(session.id);
    const sameRow = before !== undefined && before.session.version === session.version;
    const kept = request ?? (sameRow ? before.request : undefined);
    const shown = brand ?? before?.brand;
    this.entries.delete(session.id);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(session.id, {
      session: Object.assign(new SessionEntity(), session),
      stamp,
      ...(kept ? { request: Object.assign(new WalletRequestEntity(), kept) } : {}),
      ...(shown ? { brand: shown } : {}),
      until: nowMs + this.ttlMs,
    });
  }

  /**
   * Sets the trust stamp of the kept row of session `id` when that row is at `version`: the stamp was read
   * beside that version (the page's read a committed unit carried, ADR 0067 amendment); otherwise nothing.
   */
  stampAt(id: string, version: number, stamp: string | undefined): void {
    const hit = this.entries.get(id);
    if (hit && stamp !== undefined && hit.session.version === version) hit.stamp = stamp;
  }

  drop(id: string): void {
    this.entries.delete(id);
  }
}
