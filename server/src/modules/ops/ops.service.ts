// Owns liveness, readiness and the metrics endpoint's answer. Liveness says only that the process serves
// HTTP; readiness says the database answers and every migration is applied, and turns false as soon as a
// graceful shutdown starts so load balancers stop sending traffic before the listener closes.
import { timingSafeEqual } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { AppError } from '../../common/errors';
import type { ServiceMetrics } from './metrics';

export type ReadyCheck = 'ok' | 'failed' | 'pending' | 'draining';

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
    try {
      await this.deps.ds.query('SELECT 1');
      checks.database = 'ok';
      // showMigrations() is true while a migration of this build is not applied yet
      checks.migrations = (await this.deps.ds.showMigrations()) ? 'pending' : 'ok';
    } catch {
      // the failed check names itself; details of a database error stay out of an unauthenticated answer
    }
    if (this.draining) checks.shutdown = 'draining';
    const ok = checks.database === 'ok' && checks.migrations === 'ok' && !this.draining;
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
