// Owns businesses and their API keys. A key is shown once, stored as SHA-256, and its prefix tells the
// environment (sk_sandbox_ / sk_production_). Verification is constant-time on the digest.
import { randomBytes } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../../common/clock';
import type { Actor } from '../../common/context';
import { digestEqual } from '../../common/crypto';
import { AppError } from '../../common/errors';
import { base32, newId, sha256Hex } from '../../common/ids';
import type { Environment } from '../../config/config';
import { columnList, hydrate, sql } from '../../db/fast-sql';
import { ApiKeyEntity } from './api-key.entity';
import { BusinessEntity } from './business.entity';

const KEY_RE = /^sk_(sandbox|production)_([0-9a-z]{12})_([0-9a-z]{40})$/;

/**
 * The key columns the check and the actor need (label, lookup, created_at/by are never read here): fewer
 * columns for the database to describe and for mysql2 to parse on every request (ADR 0023, round 2).
 */
const KEY_CHECK = [
  'id',
  'businessId',
  'environment',
  'secretHash',
  'revokedAt',
  'scopes',
  'lastUsedAt',
] as const satisfies readonly (keyof ApiKeyEntity)[];

/**
 * A tenant-scoped read joined to the key row `k` (authenticateAnd): `columns` of the joined tables, and `from`
 * with the joins, each restricted by `k.business_id` and `k.environment`. One object per statement, reused
 * across requests: the statement text is built once per join (and per DataSource).
 */
export interface KeyJoin {
  columns: string;
  from: string;
}

const keyStatements = new WeakMap<DataSource, { plain: string; joined: WeakMap<KeyJoin, string> }>();

function statementsOf(ds: DataSource) {
  let st = keyStatements.get(ds);
  if (!st) {
    st = {
      plain: `SELECT ${columnList(ds, ApiKeyEntity, undefined, undefined, KEY_CHECK)} FROM api_key WHERE lookup = ?`,
      joined: new WeakMap(),
    };
    keyStatements.set(ds, st);
  }
  return st;
}

function joinedStatement(ds: DataSource, join: KeyJoin): string {
  const st = statementsOf(ds);
  let s = st.joined.get(join);
  if (!s) {
    s = `SELECT ${columnList(ds, ApiKeyEntity, 'k', 'k_', KEY_CHECK)}, ${join.columns} FROM api_key k ${join.from} WHERE k.lookup = ?`;
    st.joined.set(join, s);
  }
  return s;
}

// a module function, not a closure per request (the same error for every failure)
const unauthenticated = (): AppError =>
  new AppError('unauthenticated', 'Send a valid API key as "Authorization: Bearer <key>".');

export interface IssuedApiKey {
  id: string;
  /** The full key: returned once, never stored. */
  key: string;
  environment: Environment;
}

export class TenancyService {
  constructor(private readonly deps: { ds: DataSource; clock: Clock }) {}

  async createBusiness(name: string): Promise<BusinessEntity> {
    const b = Object.assign(new BusinessEntity(), {
      id: newId('biz'),
      name,
      createdAt: this.deps.clock.now(),
    });
    await this.deps.ds.getRepository(BusinessEntity).insert(b);
    return b;
  }

  async getBusiness(id: string): Promise<BusinessEntity | null> {
    return this.deps.ds.getRepository(BusinessEntity).findOneBy({ id });
  }

  async issueApiKey(
    businessId: string,
    environment: Environment,
    label = 'default',
    opts: { scopes?: readonly string[] | null; createdBy?: string | null; manager?: EntityManager } = {},
  ): Promise<IssuedApiKey> {
    const lookup = base32(randomBytes(8)).slice(0, 12);
    const secret = base32(randomBytes(25)).slice(0, 40);
    const key = `sk_${environment}_${lookup}_${secret}`;
    const row = Object.assign(new ApiKeyEntity(), {
      id: newId('key'),
      businessId,
      environment,
      lookup,
      secretHash: sha256Hex(key),
      label,
      createdAt: this.deps.clock.now(),
      revokedAt: null,
      scopes: opts.scopes && opts.scopes.length > 0 ? [...opts.scopes].sort().join(',') : null,
      createdBy: opts.createdBy ?? null,
      lastUsedAt: null,
    });
    await (opts.manager ?? this.deps.ds.manager).getRepository(ApiKeyEntity).insert(row);
    return { id: row.id, key, environment };
  }

  async revokeApiKey(businessId: string, keyId: string): Promise<void> {
    const res = await this.deps.ds
      .getRepository(ApiKeyEntity)
      .update({ id: keyId, businessId }, { revokedAt: this.deps.clock.now() });
    if (!res.affected) throw new AppError('not_found', 'No such API key.');
  }

  /** Per key: when this process last wrote its last_used_at (a write-side dedupe; reads never use it). */
  private readonly lastUsedWrites = new Map<string, number>();

  /** Resolves a bearer key to its tenant actor, or throws `unauthenticated` (same answer for every failure). */
  async authenticate(presented: string | undefined): Promise<ApiKeyActor> {
    return (await this.authenticateAnd(presented)).actor;
  }

  /**
   * `authenticate`, with a tenant-scoped read in the same statement (one round trip; the lean lane's GET):
   * `join.from` is joined to the key row `k` and must restrict every table it reads by `k.business_id` and
   * `k.environment`; its rows come back only when the key checks out, and are never read otherwise.
   */
  async authenticateAnd(
    presented: string | undefined,
    join?: { join: KeyJoin; params: unknown[] },
  ): Promise<{ actor: ApiKeyActor; rows: Record<string, unknown>[] }> {
    if (!presented) throw unauthenticated();
    const m = KEY_RE.exec(presented);
    if (!m) throw unauthenticated();
    // Read on every request, never cached: a revocation takes effect at once on every node (plain SQL: this
    // runs before every /v1 call, and the repository call cost more CPU than the whole baseline request).
    const ds = this.deps.ds;
    const rows = join
      ? await sql(ds, joinedStatement(ds, join.join), [...join.params, m[2]])
      : await sql(ds, statementsOf(ds).plain, [m[2]]);
    const row = rows[0] ? hydrate(ds, ApiKeyEntity, rows[0], join ? 'k_' : '', KEY_CHECK) : null;
    // both sides are SHA-256 hex digests (64 characters): a constant-time comparison of equal lengths
    const ok = row !== null && digestEqual(row.secretHash, sha256Hex(presented));
    if (!ok || !row || row.revokedAt !== null || row.environment !== m[1]) throw unauthenticated();
    // Every request reads the row (no per-node cache), so a revoke is effective at once on every node.
    // "Last used" is written at most once a minute per key, as a guarded update.
    const now = this.deps.clock.now();
    // Concurrent requests all read the old value; the first of this process writes, the others do not send
    // an UPDATE that would change nothing (under load, 50 connections sent up to 50 per key per minute).
    const touched = this.lastUsedWrites.get(row.id);
    if (
      (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= 60_000) &&
      (touched === undefined || now.getTime() - touched >= 60_000 || now.getTime() < touched)
    ) {
      if (this.lastUsedWrites.size >= 10_000) this.lastUsedWrites.clear();
      this.lastUsedWrites.set(row.id, now.getTime());
      await this.deps.ds
        .createQueryBuilder()
        .update(ApiKeyEntity)
        .set({ lastUsedAt: now })
        .where('id = :id AND (last_used_at IS NULL OR last_used_at < :cut)', {
          id: row.id,
          cut: new Date(now.getTime() - 60_000),
        })
        .execute();
    }
    return {
      actor: {
        kind: 'api_key',
        apiKeyId: row.id,
        businessId: row.businessId,
        environment: row.environment,
        scopes: row.scopes ? row.scopes.split(',') : null,
      },
      rows: join ? rows : [],
    };
  }
}

export type ApiKeyActor = Extract<Actor, { kind: 'api_key' }>;

/** Extracts the bearer token from an Authorization header value. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}
