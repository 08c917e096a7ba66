// The test side of `pnpm bench sessions` in its own process (ADR 0045, amendment 3): the person's browser, the
// wallet and the webhook receiver, so the service's process runs nothing but the service. Forked by
// bench-sessions.ts with BENCH_DB_URL; answers {ready, receiverUrl, issuerKey, holderKey} once its wallet is up,
// then runs the rounds it is sent ({cmd:'round', target:'service'|'raw', ...}) and answers each with
// {done, seconds, p99Ms} (the wallet response's latency) or {dnf: reason}. A round is bounded by progress: when no
// session has completed for `stallMs`, or after 6 * stallMs in all, its calls are aborted and it answers dnf.
// The service side: the sandbox reference wallet (its own DataSource on the same database) answers the wallet
// request. The raw side: a fixed credential signed once by an issuer key of this process, and a key-binding
// signature over the raw server's nonce per session (two ES256 verifies there, as in the service).
import 'reflect-metadata';
import { generateKeyPairSync, sign } from 'node:crypto';
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
export type RoundResult = { done: number; seconds: number; p99Ms: number } | { dnf: string };

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

type One = (signal: AbortSignal, latencies: number[]) => Promise<void>;

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
    const done = receiver.completed(id, signal);
    done.catch(() => {});
    const browser = new Browser(r.base, id, signal);
    await browser.call('POST', '/open');
    await browser.read();
    await browser.call('POST', '/start');
    await browser.read();
    const wr = await browser.call('POST', '/wallet-request');
    const response = await wallet.respond({
      persona: 'adult',
      request: wr.request as Record<string, unknown>,
      origin: r.base,
    });
    const t0 = performance.now();
    await browser.call('POST', '/wallet-response', { request_id: wr.request_id, response });
    latencies.push(performance.now() - t0);
    await browser.read();
    await done;
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
    const done = receiver.completed(id, signal);
    done.catch(() => {});
    await call('POST', `/s/${id}/open`, signal);
    await call('GET', `/s/${id}`, signal);
    await call('POST', `/s/${id}/start`, signal);
    await call('GET', `/s/${id}`, signal);
    const { nonce } = (await call('POST', `/s/${id}/request`, signal)) as { nonce: string };
    const kb = sign('sha256', Buffer.from(`${credential}.${nonce}`), { key: holder.privateKey, ...es256 });
    const t0 = performance.now();
    await call('POST', `/s/${id}/response`, signal, {
      credential,
      issuer_sig: issuerSig,
      kb_sig: kb.toString('base64url'),
    });
    latencies.push(performance.now() - t0);
    await call('GET', `/s/${id}`, signal);
    await done;
    receiver.forget(id);
  };
}

async function round(r: RoundRequest, one: One): Promise<RoundResult> {
  const end = performance.now() + r.seconds * 1000;
  const stop = new AbortController();
  let progress = performance.now();
  const watchdog = setInterval(() => {
    if (performance.now() - progress > r.stallMs)
      stop.abort(new Error(`no session completed for ${r.stallMs / 1000} s`));
  }, 250);
  const cap = setTimeout(
    () => stop.abort(new Error(`not done after ${(6 * r.stallMs) / 1000} s`)),
    6 * r.stallMs,
  );
  const latencies: number[] = [];
  let done = 0;
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
  }
  latencies.sort((a, b) => a - b);
  const p99Ms = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0;
  return { done, seconds: (performance.now() - t0) / 1000, p99Ms };
}

async function main(): Promise<void> {
  await receiver.start();
  const ds = await createDataSource(
    { databaseUrl: process.env.BENCH_DB_URL, dataDir: process.env.BENCH_DATA_DIR ?? '' },
    { poolSize: 4 },
  );
  await ds.initialize();
  const wallet = new ReferenceWallet({ ds, clock: systemClock });
  process.on('disconnect', () => process.exit(0)); // the bench process is gone: never outlive it
  process.on('message', (m: RoundRequest | { cmd: 'secret'; secret: string } | { cmd: 'exit' }) => {
    if (m.cmd === 'secret') receiver.secret = m.secret;
    else if (m.cmd === 'exit') {
      void receiver.stop().finally(() => ds.destroy().finally(() => process.exit(0)));
    } else if (m.cmd === 'round') {
      void round(m, m.target === 'service' ? serviceSession(wallet, m) : rawSession(m)).then((res) =>
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
