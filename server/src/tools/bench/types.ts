// The shape every benchmark module shares (server/src/tools/bench-<name>.ts), so the runner (tools/bench.ts)
// can import each one and print a single table. A module:
//   export async function bench(opts: BenchOptions): Promise<BenchRow[]>
// and, at its end, `runIfMain(import.meta.url, bench)` so that running the file alone prints its own rows.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BenchOptions {
  /** CI smoke: a few seconds per row, small data sets; the numbers are only a sanity check. */
  smoke: boolean;
  /** Opt-in slow steps (e.g. the 1M-session size-scaling step); modules may ignore it. */
  large?: boolean;
}

/**
 * One measured value against a baseline measured in the same run on the same machine.
 * ratio = value / baseline for rates (higher is better); for latencies ratio = baseline / value, so a ratio is
 * always "fraction of the baseline we achieve" and 1 means as good as the baseline.
 */
export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  baseline: number;
  baselineName: string;
  ratio: number;
  /** The target, as text (e.g. ">= 0.5"); shown next to the ratio. */
  goal?: string;
}

export type BenchFn = (opts: BenchOptions) => Promise<BenchRow[]>;

export const rateRow = (
  name: string,
  value: number,
  baselineName: string,
  baseline: number,
  unit = 'req/s',
  goal?: string,
): BenchRow => ({ name, value, unit, baseline, baselineName, ratio: value / baseline, goal });

export const latencyRow = (
  name: string,
  value: number,
  baselineName: string,
  baseline: number,
  unit = 'ms',
  goal?: string,
): BenchRow => ({ name, value, unit, baseline, baselineName, ratio: value > 0 ? baseline / value : 0, goal });

export function optionsFromArgv(argv: string[] = process.argv.slice(2)): BenchOptions {
  return {
    smoke: argv.includes('--smoke') || process.env.BENCH_SMOKE === '1',
    large: argv.includes('--large') || process.env.BENCH_LARGE === '1',
  };
}

const fmt = (n: number): string =>
  !Number.isFinite(n)
    ? String(n)
    : Math.abs(n) >= 100
      ? n.toFixed(0)
      : Math.abs(n) >= 10
        ? n.toFixed(1)
        : n.toFixed(2);

/** The one table: value, baseline, ratio and goal per row. */
export function formatTable(rows: BenchRow[]): string {
  const head = ['benchmark', 'value', 'baseline', 'ratio', 'goal'];
  const body = rows.map((r) => [
    r.name,
    `${fmt(r.value)} ${r.unit}`,
    `${fmt(r.baseline)} ${r.unit} (${r.baselineName})`,
    fmt(r.ratio),
    r.goal ?? '',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || i === 2 || i === 4 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** Runs a module's bench when its file is the entry point (`tsx src/tools/bench-x.ts [--smoke]`). */
export function runIfMain(moduleUrl: string, fn: BenchFn): void {
  const entry = process.argv[1];
  if (!entry || path.resolve(entry) !== fileURLToPath(moduleUrl)) return;
  fn(optionsFromArgv())
    .then((rows) => {
      console.log(formatTable(rows));
      process.exit(0);
    })
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
