// `pnpm bench [--smoke] [--large] [name...]`: imports every server/src/tools/bench-<name>.ts module, runs its
// `bench(opts)` in turn (one at a time: they share two cores), and prints one table of ratios against the
// baselines each module measured in the same run. A module that throws is reported and the others still run;
// the exit code is non-zero then. No row fails on a number: timing goals are read by people, not asserted.
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type BenchFn, type BenchRow, formatTable, optionsFromArgv } from './bench/types';

async function main(): Promise<void> {
  const opts = optionsFromArgv();
  const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const dir = path.dirname(fileURLToPath(import.meta.url));
  const files = fs
    .readdirSync(dir)
    .filter((f) => /^bench-[\w-]+\.ts$/.test(f))
    .filter((f) => only.length === 0 || only.includes(f.slice('bench-'.length, -'.ts'.length)))
    .sort();
  const rows: BenchRow[] = [];
  const failed: string[] = [];
  const started = Date.now();
  for (const f of files) {
    const mod = (await import(pathToFileURL(path.join(dir, f)).href)) as { bench?: BenchFn };
    if (typeof mod.bench !== 'function') continue;
    const t0 = Date.now();
    console.error(`# ${f}${opts.smoke ? ' (smoke)' : ''}`);
    try {
      const got = await mod.bench(opts);
      rows.push(...got);
      console.error(`# ${f}: ${got.length} rows in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    } catch (e) {
      failed.push(f);
      console.error(`# ${f} failed:`, e);
    }
  }
  console.log(`\n${formatTable(rows)}`);
  console.log(
    `\nratio: fraction of the baseline (rates value/baseline, latencies baseline/value); ${((Date.now() - started) / 1000).toFixed(0)} s in all`,
  );
  if (failed.length) {
    console.error(`failed: ${failed.join(', ')}`);
    process.exit(1);
  }
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
