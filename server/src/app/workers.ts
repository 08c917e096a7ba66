// Background work of a node (webhook relay, expiry/decision sweeps, upload cleanup, pending receipt emails and
// trust list refreshes)
// and its graceful shutdown.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../common/logger';
import type { Config } from '../config/config';
import { recordServiceUrls } from '../config/service-urls';
import type { DatabaseAvailability } from '../db/availability';
import type { TransientUploadCleanup } from '../modules/document/cleanup';
import type { ServiceMetrics } from '../modules/ops/metrics';
import type { OpsService } from '../modules/ops/ops.service';
import type { ReceiptService } from '../modules/receipt/receipt.service';
import type { SessionService } from '../modules/session/session.service';
import type { TrustListService } from '../modules/trustlist/trust-list.service';
import type { WebhookRelay } from '../modules/webhook/webhook.relay';
import type { HttpApp } from './http-app';
import type { Service } from './service-types';

export interface WorkerDeps {
  logger: Logger;
  relay: { start(): void };
  /** One counted expiry-sweeper pass (Service.sweep). */
  sweep(): Promise<number>;
  sweepDecisionsDue(): Promise<unknown>;
  cleanupPass(): Promise<unknown>;
  deliverPendingReceipts(): Promise<unknown>;
  /** ETSI trust lists whose NextUpdate (or retry time) has come (ADR 0036). */
  refreshTrustLists(): Promise<unknown>;
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
    // boundaries (issue 7): gate reminders on the same beat (an Idempotency-Key is held by its session for
    // as long as the session exists, so there is no purge pass: ADR 0024, 0048)
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
  // trust lists: one cheap query per minute; a due list is claimed by one node and refreshed
  const trustLists = setInterval(() => {
    d.refreshTrustLists().catch((e) => {
      if (!isOutage(e)) logger.error('trust list pass failed', { error: String(e) });
    });
  }, 60_000);
  return {
    stop() {
      clearInterval(sweeper);
      clearInterval(receiptWorker);
      clearInterval(trustLists);
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
  /** Told as each stage ends, so an operator (or a test) sees where a shutdown that takes long is waiting. */
  stage?(name: 'requests answered' | 'relay stopped' | 'connections closed' | 'released'): void;
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
  s.stage?.('relay stopped');
  await drained;
  s.stage?.('requests answered');
  await s.stopGraphql();
  if (server) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  s.stage?.('connections closed');
  for (const release of s.release) await release();
  s.stage?.('released');
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

export interface NodeLifecycleDeps {
  config: Config;
  logger: Logger;
  /** Start the relay and the interval passes on listen (ServiceOptions.workers). */
  workers: boolean;
  tracing: boolean;
  web: HttpApp;
  ops: OpsService;
  metrics: ServiceMetrics;
  availability: DatabaseAvailability;
  relay: WebhookRelay;
  sessions: SessionService;
  cleanup: TransientUploadCleanup;
  receipts: ReceiptService;
  trustLists: TrustListService;
  shutdownGraceMs: number;
  /** Pools, KMS clients, Redis, tracing: closed in this order after the HTTP server. */
  release: Array<() => Promise<void> | void>;
}

/** Service.sweep, listen and close of one node. */
export function nodeLifecycle(d: NodeLifecycleDeps): Pick<Service, 'sweep' | 'listen' | 'close'> {
  let server: http.Server | undefined;
  let workers: { stop(): void } | undefined;
  const sweep = (): Promise<number> =>
    d.sessions.sweepOverdue().then(
      (n) => {
        d.metrics.sweep('ok', n);
        return n;
      },
      (e: unknown) => {
        d.metrics.sweep('error');
        throw e;
      },
    );
  return {
    sweep,
    async listen() {
      const listening = d.web.createServer(d.tracing);
      // a port taken by another process is a startup error the caller sees (EADDRINUSE), not an uncaught one
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(d.config.port, d.config.host, () => {
          listening.off('error', reject);
          resolve();
        });
      });
      server = listening;
      if (d.workers)
        workers = startWorkers({
          logger: d.logger,
          relay: d.relay,
          sweep,
          sweepDecisionsDue: () => d.sessions.sweepDecisionsDue(),
          cleanupPass: () => d.cleanup.pass(),
          deliverPendingReceipts: () => d.receipts.deliverPending(),
          refreshTrustLists: () => d.trustLists.refreshDue(),
          isOutage: (e) => d.availability.classify(e) !== undefined,
        });
      const { port } = listening.address() as AddressInfo;
      // the operator CLI beside this service builds its links with these (ADR 0051)
      recordServiceUrls(d.config, new Date());
      return `http://${d.config.host}:${port}`;
    },
    close: () =>
      shutdown({
        drain: () => d.ops.drain(),
        stopWorkers: () => workers?.stop(),
        stopAvailability: () => d.availability.stop(),
        server,
        graceMs: d.shutdownGraceMs,
        stopRelay: () => d.relay.stop(),
        stopGraphql: () => d.web.stopGraphql(),
        release: d.release,
        stage: (name) => d.logger.info('shutdown', { stage: name }),
      }),
  };
}
