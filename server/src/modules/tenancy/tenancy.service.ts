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

  /**
   * Keys this process has verified against their row, by lookup: only what never changes on a key row (id,
   * tenant, digest, scopes). Revocation is not here: authenticateRemembered leaves it to the caller's write.
   */
  private readonly remembered = new Map<string, RememberedKey>();

  /** Resolves a bearer key to its tenant actor, or throws `unauthenticated` (same answer for every failure). */
  async authenticate(presented: string | undefined): Promise<ApiKeyActor> {
    return (await this.authenticateAnd(presented)).actor;
  }

  /**
   * `authenticate`, with a tenant-scoped read in the same statement (one round trip; the /v1 GET):
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
    if (!ok || !row || row.revokedAt !== null || row.environment !== m[1]) {
      this.remembered.delete(m[2]);
      throw unauthenticated();
    }
    const actor: ApiKeyActor = {
      kind: 'api_key',
      apiKeyId: row.id,
      businessId: row.businessId,
      environment: row.environment,
      scopes: row.scopes ? row.scopes.split(',') : null,
    };
    if (!this.remembered.has(m[2])) {
      if (this.remembered.size >= REMEMBERED_MAX) this.remembered.clear(); // bounded: a miss costs one read
      this.remembered.set(m[2], { secretHash: row.secretHash, actor });
    }
    const touching = this.touch(row.id, row.lastUsedAt);
    if (touching) await touching;
    return { actor, rows: join ? rows : [] };
  }

  /**
   * For a route whose write checks the key's revocation in its own statement (the session create's guarded
   * INSERT, ADR 0025): a key this process verified before is recognised without a read (constant-time digest
   * comparison, as above), and `confirm` reads its row, throwing `unauthenticated` if it was revoked since;
   * the route calls it before any other statement. Any other key is read and checked as by `authenticate`.
   * What is remembered never changes on a key row, so this is correct on every node without invalidation.
   */
  async authenticateRemembered(
    presented: string | undefined,
  ): Promise<{ actor: ApiKeyActor; rows: []; confirm?: () => Promise<void> }> {
    const m = presented ? KEY_RE.exec(presented) : null;
    const known = m ? this.remembered.get(m[2]) : undefined;
    if (!presented || !m || !known) return { actor: await this.authenticate(presented), rows: [] };
    if (!digestEqual(known.secretHash, sha256Hex(presented)) || known.actor.environment !== m[1]) {
      // not the remembered key: its row decides, as for any key this process has not seen
      this.remembered.delete(m[2]);
      return { actor: await this.authenticate(presented), rows: [] };
    }
    const touching = this.touch(known.actor.apiKeyId, undefined);
    if (touching) await touching;
    return {
      actor: known.actor,
      rows: [],
      confirm: async () => {
        await this.authenticate(presented);
      },
    };
  }

  /**
   * "Last used" is written at most once a minute per key and process, as a guarded update. `lastUsedAt` is the
   * row's value when it was just read (undefined: not read). Concurrent requests all read the old value; the
   * first of this process writes, the others do not send an UPDATE that would change nothing (under load, 50
   * connections sent up to 50 per key per minute). Undefined when nothing is to write (no promise to await on
   * every request).
   */
  private touch(keyId: string, lastUsedAt: Date | null | undefined): Promise<unknown> | undefined {
    const now = this.deps.clock.now();
    if (lastUsedAt && now.getTime() - lastUsedAt.getTime() < 60_000) return;
    const touched = this.lastUsedWrites.get(keyId);
    if (touched !== undefined && now.getTime() - touched < 60_000 && now.getTime() >= touched) return;
    if (this.lastUsedWrites.size >= 10_000) this.lastUsedWrites.clear();
    this.lastUsedWrites.set(keyId, now.getTime());
    return this.deps.ds
      .createQueryBuilder()
      .update(ApiKeyEntity)
      .set({ lastUsedAt: now })
      .where('id = :id AND (last_used_at IS NULL OR last_used_at < :cut)', {
        id: keyId,
        cut: new Date(now.getTime() - 60_000),
      })
      .execute();
  }
}

const REMEMBERED_MAX = 10_000;

interface RememberedKey {
  secretHash: string;
  actor: ApiKeyActor;
}

export type ApiKeyActor = Extract<Actor, { kind: 'api_key' }>;

/** Extracts the bearer token from an Authorization header value. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}
