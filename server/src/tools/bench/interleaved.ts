// The measuring loop the verification benches share: a function and its raw baseline, in alternating slices,
// so a change of load on a shared machine falls on both sides alike.

export interface Measured {
  perSec: number;
  cpuUs: number;
}

/**
 * The rate (per wall-clock second) and CPU per call (this process, all threads, µs) of `fn` and of the
 * baseline, measured in alternating 100 ms slices for `seconds` each: a change of load on a shared machine
 * (other builds, a second benchmark) falls on both sides alike instead of on whichever ran at that moment.
 * Warm-up: 20 calls, or `warmupCalls`, so that what is measured is the optimized code of a running service and
 * not V8 compiling it (its compiler threads count in this process's CPU). A number of calls and not a time: on
 * a loaded machine a time would be fewer calls.
 */
export async function interleaved(
  label: string,
  seconds: number,
  fn: () => unknown | Promise<unknown>,
  baseline: () => unknown,
  opts: { warmupCalls?: number } = {},
): Promise<{ value: Measured; base: Measured }> {
  const warmup = opts.warmupCalls ?? 20;
  for (let i = 0; i < warmup; i++) await fn(); // warm-up
  for (let i = 0; i < 200; i++) baseline();
  const acc = { fn: { n: 0, ns: 0n, cpu: 0 }, base: { n: 0, ns: 0n, cpu: 0 } };
  const slice = async (side: 'fn' | 'base') => {
    const a = acc[side];
    const cpu0 = process.cpuUsage();
    const start = process.hrtime.bigint();
    const end = start + 100_000_000n;
    let now = start;
    while (now < end) {
      if (side === 'fn') await fn();
      else baseline();
      a.n++;
      now = process.hrtime.bigint();
    }
    a.ns += now - start;
    const cpu = process.cpuUsage(cpu0);
    a.cpu += cpu.user + cpu.system;
  };
  for (let i = 0; i < seconds * 10; i++) {
    await slice('base');
    await slice('fn');
  }
  const measured = (a: { n: number; ns: bigint; cpu: number }): Measured => ({
    perSec: a.n / (Number(a.ns) / 1e9),
    cpuUs: a.cpu / a.n,
  });
  const value = measured(acc.fn);
  const base = measured(acc.base);
  console.error(
    `  ${label.padEnd(44)} ${value.perSec.toFixed(0).padStart(8)} /s  ${value.cpuUs.toFixed(0).padStart(6)} µs CPU each` +
      `   (raw ES256 beside it: ${base.perSec.toFixed(0)} /s, ${base.cpuUs.toFixed(1)} µs CPU)`,
  );
  return { value, base };
}
