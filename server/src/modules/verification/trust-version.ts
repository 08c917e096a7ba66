// Owns the trust version (ADR 0063): one row, `trust_version`, that every write changing what a route trusts
// bumps in the SAME transaction as the change: trusted issuers, X.509 trust anchors, mdoc IACAs (configured or
// from a trust list), a route's speaking mode and its x5c leaf-only flag. With the catalog's version (ADR 0025,
// which every write to the routes themselves bumps) it makes the trust stamp: the two numbers a hosted-page
// request reads with its session (scalar subqueries, no round trip of their own). The trust stores answer a
// route's trust from their per-instance cache only while the stamp the request read equals the stamp their
// cached read saw, so a change on any node is seen by the next request on every node.
// A writer that forgot the bump would leave every node trusting what it read before: the guard
// (test/unit/trust-writers.test.ts) lists every code path that writes those tables and fails on one without the bump.
import { Column, Entity, type EntityManager, PrimaryColumn } from 'typeorm';
import { int } from '../../db/columns';

@Entity('trust_version')
export class TrustVersionEntity {
  @PrimaryColumn({ ...int(), name: 'id' }) id!: number;
  @Column({ ...int(), name: 'version' }) version!: number;
}

/**
 * Bumps the trust version; call it in the transaction that changes trust (first, so concurrent writers queue on
 * the row's lock and a reader never sees the change without the new number).
 */
export async function bumpTrustVersion(m: EntityManager): Promise<void> {
  await m.query('UPDATE trust_version SET version = version + 1 WHERE id = 1');
}

/** The stamp's two numbers, each a scalar subquery of its one-row table. */
const CATALOG_VERSION = '(SELECT cv.version FROM catalog_version cv WHERE cv.id = 1)';
const TRUST_VERSION = '(SELECT tv.version FROM trust_version tv WHERE tv.id = 1)';

/** The two scalar subqueries a session read adds to its SELECT list (columns `trust_cv`, `trust_tv`). */
export const TRUST_STAMP_COLUMNS = `${CATALOG_VERSION} AS trust_cv, ${TRUST_VERSION} AS trust_tv`;

/** The stamp from a row that carries TRUST_STAMP_COLUMNS (undefined: a version row is missing, never cached). */
export function trustStampOf(row: { trust_cv?: unknown; trust_tv?: unknown }): string | undefined {
  if (row.trust_cv == null || row.trust_tv == null) return undefined;
  return `${Number(row.trust_cv)}.${Number(row.trust_tv)}`;
}

/**
 * A guard condition that holds while the trust is still at `stamp`: a write decided on trust read at that stamp
 * (a completion that began from a cached session row, ADR 0067) is refused on the server once trust changed.
 */
export function stampGuard(stamp: string): { where: string; params: unknown[] } {
  const [cv, tv] = stamp.split('.').map(Number);
  return {
    where: `${CATALOG_VERSION} = ? AND ${TRUST_VERSION} = ?`,
    params: [cv, tv],
  };
}

/**
 * The join that reads the stamp in the same statement as a trust read (one snapshot): `FROM ${STAMP_FROM} LEFT
 * JOIN <trust table> ON …`; the row always exists, its trust columns NULL when nothing is trusted.
 */
export const STAMP_FROM = 'catalog_version cv JOIN trust_version tv ON tv.id = 1 AND cv.id = 1';

/** A bounded map of trust reads with the stamp each was read at; a hit needs the caller's stamp to be equal. */
export class StampedCache<V> {
  private readonly entries = new Map<string, { stamp: string; value: V }>();
  constructor(private readonly max = 512) {}

  get(key: string, stamp: string | undefined): V | undefined {
    if (stamp === undefined) return undefined;
    const hit = this.entries.get(key);
    return hit && hit.stamp === stamp ? hit.value : undefined;
  }

  /** Keeps `value` as read at `stamp` (undefined: not kept); the oldest entry goes first past `max`. */
  keep(key: string, stamp: string | undefined, value: V): V {
    if (stamp === undefined || this.max <= 0) return value;
    this.entries.delete(key);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { stamp, value });
    return value;
  }
}
