// Background work of a node (webhook relay, expiry/decision sweeps, upload cleanup and pending receipt emails)
// and its graceful shutdown.
import type http from 'node:http';
import type { Logger } from '../common/logger';

export interface WorkerDeps {
  logger: Logger;
  relay: { start(): void };
  /** One counted expiry-sweeper pass (Service.sweep). */
  sweep(): Promise<number>;
  sweepDecisionsDue(): Promise<unknown>;
  cleanupPass(): Promise<unknown>;
  deliverPendingReceipts(): Promise<unknown>;
  /** True for a database outage, which DatabaseAvailability logs once rather than every pass. */
  isOutage(e: unknown): boolean;
}

/** Starts the relay and the interval passes; the answer stops the intervals (the relay stops in shutdown). */
export function startWorkers(d: WorkerDeps): { stop(): void } {
  const { logger, isOutage } = d;
  d.relay.start();
  const sweeper = setInterval(() => {
    // an outage is logged once by DatabaseAvailability, not by every pass
    const failed = (what: string) => (e: unknown) => {
      if (!isOutage(e)) logger.error(`${what} failed`, { error: String(e) });
    };
    d.sweep().catch(failed('expiry sweep')); // counted in /metrics
    // boundaries (issue 7): gate reminders on the same beat (an Idempotency-Key is released lazily after
    // its 24 h by the next request with it, so there is no purge pass: ADR 0024)
    d.sweepDecisionsDue().catch(failed('decision sweep'));
  }, 30_000);
  // transient-upload cleanup and receipt emails left pending by a failed send (bounded batches)
  const receiptWorker = setInterval(() => {
    d.cleanupPass()
      .then(() => d.deliverPendingReceipts())
      .catch((e) => {
        if (!isOutage(e)) logger.error('cleanup/receipt pass failed', { error: String(e) });
      });
  }, 60_000);
  return {
    stop() {
      clearInterval(sweeper);
      clearInterval(receiptWorker);
    },
  };
}

export interface ShutdownSteps {
  /** Readiness fails and answers close their connections. */
  drain(): void;
  stopWorkers(): void;
  stopAvailability(): void;
  server?: http.Server;
  graceMs: number;
  /** Waits for the relay's in-flight deliveries. */
  stopRelay(): Promise<void>;
  stopGraphql(): Promise<void>;
  /** Pools, KMS clients, Redis, tracing: closed in this order after the HTTP server. */
  release: Array<() => Promise<void> | void>;
}

/**
 * Graceful: readiness fails and new connections are refused at once; requests in flight and the relay's
 * in-flight deliveries (whose outcome writes release their leases) finish; then the pools close.
 */
export async function shutdown(s: ShutdownSteps): Promise<void> {
  s.drain();
  s.stopWorkers();
  s.stopAvailability();
  const server = s.server;
  const drained = server ? drainHttp(server, s.graceMs) : Promise.resolve();
  await s.stopRelay();
  await drained;
  await s.stopGraphql();
  if (server) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  for (const release of s.release) await release();
}

/**
 * Stops accepting connections, closes keep-alive connections as they turn idle, and resolves when every
 * request in flight has been answered, or after `graceMs`, when the remaining connections are cut.
 */
async function drainHttp(server: http.Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const idle = setInterval(() => server.closeIdleConnections(), 50);
  const cut = setTimeout(() => server.closeAllConnections(), graceMs);
  server.closeIdleConnections();
  try {
    await closed;
  } finally {
    clearInterval(idle);
    clearTimeout(cut);
  }
}
