// Where a bench's latency goes inside the process under test (ADR 0061): the event loop's delay
// (perf_hooks.monitorEventLoopDelay: how long a ready callback waited for the loop), the time spent in garbage
// collection pauses, and how long each mysql2 pool made its callers wait for a connection. Read around one
// round of `pnpm bench sessions`, printed beside its rows; no number here is a row of its own.
import { type IntervalHistogram, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import type { DataSource } from 'typeorm';

interface Pool {
  getConnection(cb: (err: unknown, conn: unknown) => void): void;
}

export interface ProbeReading {
  /** Event-loop delay percentiles over the round, ms. */
  loopP50: number;
  loopP99: number;
  loopMax: number;
  /** Garbage collection pauses: their count and total, ms. */
  gcCount: number;
  gcMs: number;
  /** Connection acquires per pool: how many, and the mean and the longest wait, ms. */
  pools: Record<string, { n: number; meanMs: number; maxMs: number }>;
}

/** How often the event-loop delay is sampled, ms. */
const LOOP_RESOLUTION_MS = 10;

export class LoopProbe {
  // Node's default sampling interval (10 ms): at 1 ms the probe's own timer woke the measured process a
  // thousand times a second, CPU charged to the service that the raw server does not pay (ADR 0068); a 10 s round
  // still gives a thousand samples for its p99. The histogram records the time between two ticks, the interval
  // included: read() takes the interval off, so that a reading is the delay alone (readings before ADR 0068
  // held the 1 ms interval).
  private readonly loop: IntervalHistogram = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  private readonly gc = { count: 0, ms: 0 };
  private readonly observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      this.gc.count++;
      this.gc.ms += e.duration;
    }
  });
  private readonly waits = new Map<string, { n: number; ms: number; max: number }>();
  private readonly undo: Array<() => void> = [];

  /** Measures connection waits on the mysql2 pool of each named DataSource (skipped for other drivers). */
  constructor(sources: Record<string, DataSource | undefined>) {
    for (const [name, ds] of Object.entries(sources)) {
      const pool = (ds?.driver as unknown as { pool?: Pool } | undefined)?.pool;
      if (!pool || typeof pool.getConnection !== 'function') continue;
      const w = { n: 0, ms: 0, max: 0 };
      this.waits.set(name, w);
      const orig = pool.getConnection;
      pool.getConnection = function (this: Pool, cb) {
        const t0 = performance.now();
        return orig.call(this, (err, conn) => {
          const ms = performance.now() - t0;
          w.n++;
          w.ms += ms;
          w.max = Math.max(w.max, ms);
          cb(err, conn);
        });
      };
      this.undo.push(() => {
        pool.getConnection = orig;
      });
    }
    this.observer.observe({ entryTypes: ['gc'] });
    this.loop.enable();
  }

  reset(): void {
    this.loop.reset();
    this.gc.count = 0;
    this.gc.ms = 0;
    for (const w of this.waits.values()) Object.assign(w, { n: 0, ms: 0, max: 0 });
  }

  read(): ProbeReading {
    const ms = (ns: number) => ns / 1e6;
    const delay = (ns: number) => Math.max(0, ms(ns) - LOOP_RESOLUTION_MS);
    const pools: ProbeReading['pools'] = {};
    for (const [name, w] of this.waits)
      pools[name] = { n: w.n, meanMs: w.n > 0 ? w.ms / w.n : 0, maxMs: w.max };
    return {
      loopP50: delay(this.loop.percentile(50)),
      loopP99: delay(this.loop.percentile(99)),
      loopMax: delay(this.loop.max),
      gcCount: this.gc.count,
      gcMs: this.gc.ms,
      pools,
    };
  }

  close(): void {
    this.loop.disable();
    this.observer.disconnect();
    for (const u of this.undo) u();
  }
}
