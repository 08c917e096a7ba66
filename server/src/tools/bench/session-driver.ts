// The test side of `pnpm bench sessions` in its own process (ADR 0045, amendment 3): the person's browser, the
// wallet and the webhook receiver, so the service's process runs nothing but the service. Forked by
// bench-sessions.ts with BENCH_DB_URL; answers {ready, receiverUrl, issuerKey, holderKey} once its wallet is up,
// then runs the rounds it is sent ({cmd:'round', target:'service'|'raw', ...}) and answers each with
// {done, seconds, walletMs, hookMs, commitMs} or {dnf: reason}: walletMs the wallet response's latency per
// session, hookMs how long after that answer arrived the session's session.completed webhook reached the
// receiver (0 when it came first: the relay may post before the answer's last bytes are read), commitMs the
// database's own commit latency during the round (the commit probe, on a connection of its own). A round is
// bounded by progress: when no session has completed for `stallMs`, or after 6 * stallMs in all, its calls are
// aborted and it answers dnf.
// The service side: the sandbox reference wallet (its own DataSource on the same database) answers the wallet
// request. The raw side: a fixed credential signed once by an issuer key of this process, and a key-binding
// signature over the raw server's nonce per session (two ES256 verifies there, as in the service).
import 'reflect-metadata';
import { generateKeyPairSync, sign } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { createDataSource } from '../../app/database';
import { systemClock } from '../../common/clock';
import { ReferenceWallet } from '../../modules/sandbox/reference-wallet';
import { Browser, Receiver } from './session-parts';

export interface RoundRequest {
  cmd: 'round';
  target: 'service' | 'raw';
  base: string;
  apiKey?: string;
  workflowId?: string;
  n: number;
  seconds: number;
  stallMs: number;
}
export type RoundResult =
  | { done: number; seconds: number; walletMs: number[]; hookMs: number[]; commitMs: number[] }
  | { dnf: string };

/** One autocommit INSERT on a connection of its own: what the database itself takes to commit, for the probe. */
type Commit = () => Promise<unknown>;
/** How often the commit probe commits during a round. */
const COMMIT_PROBE_MS = 20;

/** The latencies one session adds to its round. */
interface Latencies {
  wallet: number[];
  hook: number[];
}

const receiver = new Receiver();
const issuer = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const holder = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const es256 = { dsaEncoding: 'ieee-p1363' as const };
const credential = Buffer.from(
  JSON.stringify({ given_name: 'Erika', family_name: 'Mustermann', birth_date: '1964-08-12' }),
).toString('base64url');
const issuerSig = sign('sha256', Buffer.from(credential), { key: issuer.privateKey, ...es256 }).toString(
  'base64url',
);

async function json(res: Response, what: string): Promise<Record<string, unknown>> {
  const out = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${what}: ${res.status} ${JSON.stringify(out)}`);
  return out;
}

type One = (signal: AbortSignal, latencies: Latencies) => Promise<void>;

function serviceSession(wallet: ReferenceWallet, r: RoundRequest): One {
  const body = JSON.stringify({ workflow_id: r.workflowId });
  return async (signal, latencies) => {
    const created = await fetch(`${r.base}/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${r.apiKey}`, 'content-type': 'application/json' },
      body,
      signal,
    });
    const { id } = (await json(created, 'create')) as { id: string };
    // stamped when the webhook arrives, not when this session gets round to awaiting it
    const done = receiver.completed(id, signal).then(() => performance.now());
    done.catch(() => {});
    const browser = new Browser(r.base, id, signal);
    await browser.open(); // carrying the page's first read (ADR 0062)
    await browser.start(); // carrying the page's read after it (ADR 0062 amendment)
    const wr = await browser.call('POST', '/wallet-request');
    const response = await wallet.respond({
      persona: 'adult',
      request: wr.request as Record<string, unknown>,
      origin: r.base,
    });
    const t0 = performance.now();
    // carrying the page's read after it, as the page does: the answer's latency includes it
    await browser.respond({ request_id: wr.request_id, response });
    const t1 = performance.now();
    latencies.wallet.push(t1 - t0);
    latencies.hook.push(Math.max(0, (await done) - t1));
    receiver.forget(id);
  };
}

function rawSession(r: RoundRequest): One {
  const call = async (method: string, path: string, signal: AbortSignal, body?: unknown) =>
    json(
      await fetch(`${r.base}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      }),
      `${method} ${path}`,
    );
  return async (signal, latencies) => {
    const { id } = (await call('POST', '/s', signal)) as { id: string };
    const done = receiver.completed(id, signal).then(() => performance.now());
    done.catch(() => {});
    // the open, the start and the answer answer the page's reads, as the service's do (ADR 0062 and its
    // amendment): the same requests on both sides
    await call('POST', `/s/${id}/open`, signal);
    await call('POST', `/s/${id}/start`, signal);
    const { nonce } = (await call('POST', `/s/${id}/request`, signal)) as { nonce: string };
    const kb = sign('sha256', Buffer.from(`${credential}.${nonce}`), { key: holder.privateKey, ...es256 });
    const t0 = performance.now();
    await call('POST', `/s/${id}/response`, signal, {
      credential,
      issuer_sig: issuerSig,
      kb_sig: kb.toString('base64url'),
    });
    const t1 = performance.now();
    latencies.wallet.push(t1 - t0);
    latencies.hook.push(Math.max(0, (await done) - t1));
    receiver.forget(id);
  };
}

/**
 * The database's own commit latency while a round runs: an autocommit INSERT every 20 ms on a connection no
 * session uses (ADR 0068, amendment 2). A stall that holds every connection's commit at once (the disk's
 * fsync) shows here as it does in the sessions' latencies, on whichever side's round it falls.
 */
function probeCommits(commit: Commit, until: () => boolean): Promise<number[]> {
  const out: number[] = [];
  return (async () => {
    while (!until()) {
      const t0 = performance.now();
      // a database that refuses the probe ends it; the round itself says what went wrong
      const committed = await commit().then(
        () => true,
        () => false,
      );
      if (!committed) break;
      out.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, COMMIT_PROBE_MS));
    }
    return out;
  })();
}

async function round(r: RoundRequest, one: One, commit: Commit): Promise<RoundResult> {
  const end = performance.now() + r.seconds * 1000;
  const stop = new AbortController();
  // every call of the round shares this signal, and fetch (undici) lets go of its abort listener only when the
  // response is collected: thousands are normal here, not a leak, so Node's warning (at 1,500 here) is off
  setMaxListeners(0, stop.signal);
  let progress = performance.now();
  const watchdog = setInterval(() => {
    if (performance.now() - progress > r.stallMs)
      stop.abort(new Error(`no session completed for ${r.stallMs / 1000} s`));
  }, 250);
  const cap = setTimeout(
    () => stop.abort(new Error(`not done after ${(6 * r.stallMs) / 1000} s`)),
    6 * r.stallMs,
  );
  const latencies: Latencies = { wallet: [], hook: [] };
  let done = 0;
  let over = false;
  const commits = probeCommits(commit, () => over);
  const t0 = performance.now();
  try {
    await Promise.all(
      Array.from({ length: r.n }, async () => {
        while (performance.now() < end) {
          await one(stop.signal, latencies);
          done++;
          progress = performance.now();
        }
      }),
    );
  } catch (e) {
    if (stop.signal.aborted) return { dnf: String((stop.signal.reason as Error).message) };
    return { dnf: `error: ${(e as Error).message}` };
  } finally {
    clearInterval(watchdog);
    clearTimeout(cap);
    over = true;
  }
  const seconds = (performance.now() - t0) / 1000;
  const ms = (xs: number[]) => xs.map((x) => Math.round(x * 100) / 100);
  return {
    done,
    seconds,
    walletMs: ms(latencies.wallet),
    hookMs: ms(latencies.hook),
    commitMs: ms(await commits),
  };
}

async function main(): Promise<void> {
  await receiver.start();
  const ds = await createDataSource(
    { databaseUrl: process.env.BENCH_DB_URL, dataDir: process.env.BENCH_DATA_DIR ?? '' },
    { poolSize: 4 },
  );
  await ds.initialize();
  const wallet = new ReferenceWallet({ ds, clock: systemClock });
  const prober = ds.createQueryRunner();
  await prober.connect();
  await prober.query('CREATE TABLE IF NOT EXISTS bench_commit_probe (at BIGINT NOT NULL)');
  const commit: Commit = () => prober.query('INSERT INTO bench_commit_probe (at) VALUES (?)', [Date.now()]);
  process.on('disconnect', () => process.exit(0)); // the bench process is gone: never outlive it
  process.on('message', (m: RoundRequest | { cmd: 'secret'; secret: string } | { cmd: 'exit' }) => {
    if (m.cmd === 'secret') receiver.secret = m.secret;
    else if (m.cmd === 'exit') {
      void receiver
        .stop()
        .then(() => prober.release())
        .finally(() => ds.destroy().finally(() => process.exit(0)));
    } else if (m.cmd === 'round') {
      void round(m, m.target === 'service' ? serviceSession(wallet, m) : rawSession(m), commit).then((res) =>
        process.send?.(res),
      );
    }
  });
  process.send?.({
    ready: true,
    receiverUrl: receiver.url,
    issuerKey: issuer.publicKey.export({ type: 'spki', format: 'pem' }),
    holderKey: holder.publicKey.export({ type: 'spki', format: 'pem' }),
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
