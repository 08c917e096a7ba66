// Where a stretch of this process's CPU goes: V8's sampling profiler (node:inspector, in process) runs over the
// stretch, and each sample's time is charged to the category a classifier picks from the sample's stack (leaf
// first). Idle samples are left out. Only the main thread is sampled: work a library hands to libuv's thread
// pool (async crypto, zlib) shows up in process.cpuUsage() but not here.
// `pnpm bench` with BENCH_CPU_PROFILE=<dir> keeps each profiled stretch as <dir>/<label>.cpuprofile.
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';

interface CallFrame {
  url: string;
  functionName: string;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
}

/** Picks a category from a sample's frames, innermost first; undefined drops the sample (idle). */
export type Classifier = (frames: CallFrame[]) => string | undefined;

/**
 * Runs `fn` under the sampling profiler and returns main-thread time per category (ms of samples); with `save`,
 * the profile is also written there (a .cpuprofile for Chrome DevTools or any profile viewer).
 */
export async function cpuShares(
  fn: () => Promise<void>,
  classify: Classifier,
  save?: string,
): Promise<Map<string, number>> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 250 });
    await session.post('Profiler.start');
    await fn();
    const { profile } = (await session.post('Profiler.stop')) as { profile: Profile };
    if (save) fs.writeFileSync(save, JSON.stringify(profile));
    return charge(profile, classify);
  } finally {
    session.disconnect();
  }
}

function charge(profile: Profile, classify: Classifier): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const perNode = new Map<number, number>();
  const samples = profile.samples ?? [];
  samples.forEach((id, i) => {
    perNode.set(id, (perNode.get(id) ?? 0) + (profile.timeDeltas?.[i] ?? 0));
  });
  const out = new Map<string, number>();
  for (const [id, micros] of perNode) {
    const frames: CallFrame[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const node = byId.get(cur);
      if (node) frames.push(node.callFrame);
    }
    // the profiler's own start and stop calls
    if (frames.some((f) => f.url === 'node:inspector')) continue;
    const category = classify(frames);
    if (category !== undefined) out.set(category, (out.get(category) ?? 0) + micros / 1000);
  }
  return out;
}
