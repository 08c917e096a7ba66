// Owns telling "the database cannot be reached" apart from every other error, and the outage's life cycle:
// while the database is away each request answers 503 service_unavailable with Retry-After (instead of a
// 500 and a stack trace per request), the outage is logged once when it starts, a probe notices recovery and
// logs it once. Recovery itself needs nothing from us: the driver's pool opens new connections on demand.
import type { DataSource } from 'typeorm';
import { AppError } from '../common/errors';
import type { Logger } from '../common/logger';
import { isPoolExhausted } from './pool-guard';

/** Seconds a client is told to wait (Retry-After) while the database is away. */
export const OUTAGE_RETRY_AFTER_S = 5;
/** Seconds a client is told to wait (Retry-After) when every pool connection stayed busy. */
export const BUSY_RETRY_AFTER_S = 1;

/** Driver error codes (mysql2 and Node sockets) that mean "no usable connection", not "this query failed". */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_GONE_ERROR',
  'ER_SERVER_LOST',
]);
/** MySQL/MariaDB errnos of the same: shutdown in progress, connection killed, too many connections, gone. */
const CONNECTION_ERRNOS = new Set([1053, 1927, 1040, 2006, 2013]);

/** True when e (or the driver error TypeORM wraps in it) says the database cannot be reached. */
export function isDatabaseUnavailable(e: unknown): boolean {
  for (let cur = e, depth = 0; cur && depth < 4; depth++) {
    const err = cur as {
      code?: unknown;
      errno?: unknown;
      fatal?: unknown;
      message?: unknown;
      driverError?: unknown;
      cause?: unknown;
    };
    if (typeof err.code === 'string' && CONNECTION_CODES.has(err.code)) return true;
    if (typeof err.errno === 'number' && CONNECTION_ERRNOS.has(err.errno)) return true;
    // mysql2 on a connection that already failed fatally
    if (typeof err.message === 'string' && /connection is in closed state|Pool is closed/i.test(err.message))
      return true;
    cur = err.driverError ?? err.cause;
  }
  return false;
}

export class DatabaseAvailability {
  private down = false;
  private probe: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly deps: { ds: DataSource; logger: Logger; probeIntervalMs?: number }) {}

  get available(): boolean {
    return !this.down;
  }

  /**
   * The client-facing error for e when it is an outage (logging its start once), else undefined. The
   * original error (which may name hosts) never leaves the server.
   */
  classify(e: unknown): AppError | undefined {
    // every connection busy past DB_ACQUIRE_TIMEOUT_MS: the database is there, this node is saturated (ADR 0044)
    if (isPoolExhausted(e))
      return new AppError(
        'service_unavailable',
        'The service is busy: no database connection became free in time. Retry after the Retry-After seconds.',
        { extra: { retry_after: BUSY_RETRY_AFTER_S } },
      );
    if (!isDatabaseUnavailable(e)) return undefined;
    this.markDown(e);
    return new AppError(
      'service_unavailable',
      'The service cannot reach its database right now. Retry after the Retry-After seconds.',
      { extra: { retry_after: OUTAGE_RETRY_AFTER_S } },
    );
  }

  private markDown(e: unknown): void {
    if (this.down || this.closed) return;
    this.down = true;
    const code = (e as { code?: unknown; driverError?: { code?: unknown } }).driverError?.code;
    this.deps.logger.error('database unavailable: answering 503 service_unavailable until it is back', {
      code: String(code ?? (e as { code?: unknown }).code ?? 'unknown'),
    });
    this.probe = setInterval(() => this.check(), this.deps.probeIntervalMs ?? 1000);
    this.probe.unref();
  }

  private checking = false;
  private check(): void {
    if (this.checking) return;
    this.checking = true;
    this.deps.ds
      .query('SELECT 1')
      .then(
        () => {
          if (!this.down) return;
          this.down = false;
          if (this.probe) clearInterval(this.probe);
          this.probe = undefined;
          // warn, not info: whoever saw the outage line (error) at their log level also sees its end
          this.deps.logger.warn('database available again');
        },
        () => {}, // still away: the outage was logged when it began
      )
      .finally(() => {
        this.checking = false;
      });
  }

  stop(): void {
    this.closed = true;
    if (this.probe) clearInterval(this.probe);
    this.probe = undefined;
  }
}
