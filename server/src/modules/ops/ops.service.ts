// Owns liveness, readiness and the metrics endpoint's answer. Liveness says only that the process serves
// HTTP; readiness says the database answers and every migration is applied, and turns false as soon as a
// graceful shutdown starts so load balancers stop sending traffic before the listener closes.
import { timingSafeEqual } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { AppError } from '../../common/errors';
import { probeTransitionPool } from '../../db/batched-transaction';
import { isPoolExhausted, poolState } from '../../db/pool-guard';
import type { ServiceMetrics } from './metrics';

export type ReadyCheck = 'ok' | 'failed' | 'pending' | 'draining' | 'pool_exhausted';

/**
 * How long /readyz waits for a pool connection (ms). A node whose every connection stays busy this long answers
 * 503 with `database: pool_exhausted` at once instead of waiting with the requests it cannot serve (ADR 0044);
 * `transition_pool: pool_exhausted` when it is the session transitions' pool that stays full (ADR 0058).
 */
export const READY_POOL_WAIT_MS = 1000;

export class OpsService {
  private draining = false;

  constructor(
    private readonly deps: {
      ds: DataSource;
      metrics: ServiceMetrics;
      metricsToken: string | undefined;
      /** Things an operator should act on soon that do not stop traffic (e.g. a reader certificate expiring). */
      warnings?: () => Promise<string[]>;
    },
  ) {}

  /** From now on /readyz answers 503 (graceful shutdown). */
  drain(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  async ready(): Promise<{ status: 'ready'; checks: Record<string, ReadyCheck>; warnings?: string[] }> {
    const checks: Record<string, ReadyCheck> = { database: 'failed', migrations: 'failed' };
    // the session transitions' own pool (MySQL, ADR 0058) is probed beside the API's, within the same second
    const transitions = probeTransitionPool(this.deps.ds, READY_POOL_WAIT_MS);
    try {
      const probe = this.deps.ds.query('SELECT 1');
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<'pool_exhausted'>((r) => {
        timer = setTimeout(() => r('pool_exhausted'), READY_POOL_WAIT_MS);
      });
      const first = await Promise.race([probe.then(() => 'ok' as const), waited]).finally(() =>
        clearTimeout(timer),
      );
      if (first === 'pool_exhausted') {
        probe.catch(() => {}); // it ends by itself (DB_ACQUIRE_TIMEOUT_MS at most)
        const pool = poolState(this.deps.ds);
        // every connection busy (or the embedded engine's one held): the node is saturated, not the database away
        checks.database = pool === undefined || pool.busy >= pool.size ? 'pool_exhausted' : 'failed';
        throw new Error(checks.database);
      }
      checks.database = 'ok';
      // showMigrations() is true while a migration of this build is not applied yet
      checks.migrations = (await this.deps.ds.showMigrations()) ? 'pending' : 'ok';
    } catch (e) {
      // the failed check names itself; details of a database error stay out of an unauthenticated answer
      if (checks.database === 'failed' && isPoolExhausted(e)) checks.database = 'pool_exhausted';
    }
    // named only when it fails (like `shutdown`): `database` stays the API pool's, so an operator sees which
    // pool ran out
    const transitionPool = await transitions;
    if (transitionPool !== undefined && transitionPool !== 'ok') checks.transition_pool = transitionPool;
    if (this.draining) checks.shutdown = 'draining';
    const ok =
      checks.database === 'ok' &&
      checks.migrations === 'ok' &&
      checks.transition_pool === undefined &&
      !this.draining;
    if (!ok)
      throw new AppError('not_ready', 'The service is not ready to take traffic.', { extra: { checks } });
    // warnings never fail readiness; an error reading them is not one either
    const warnings = (await this.deps.warnings?.().catch(() => [])) ?? [];
    return { status: 'ready', checks, ...(warnings.length > 0 ? { warnings } : {}) };
  }

  /** Prometheus text format; with METRICS_TOKEN set, only for `Authorization: Bearer <token>`. */
  async metrics(authorization: string | undefined): Promise<{ contentType: string; body: string }> {
    const token = this.deps.metricsToken;
    if (token !== undefined) {
      const given = Buffer.from(/^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '', 'utf8');
      const want = Buffer.from(token, 'utf8');
      // constant-time over equal lengths; a length mismatch is refused without comparing
      const ok = given.length === want.length && timingSafeEqual(given, want);
      if (!ok) throw new AppError('unauthenticated', 'Missing or invalid metrics token.');
    }
    return this.deps.metrics.text();
  }
}
