// Owns where the verify commands take the service's published key set from (ADR 0027): a saved file, or an
// address fetched over https. Plain http only for a loopback host (this machine: local development and
// tests), and the caller says so in the verdict. Never the keys inside the file being checked.
import fs from 'node:fs';
import path from 'node:path';
import type { JwkSet } from '../modules/audit/verify';

/**
 * Files named on the command line are relative to where the person ran it: as a package script, pnpm runs the
 * command in the package folder and passes the caller's folder as INIT_CWD (only trusted when this command is
 * the running script: a stale INIT_CWD is inherited by anything started under some other pnpm command).
 */
export const callerPath = (file: string): string => {
  const script = process.env.npm_lifecycle_event;
  const asScript = script === 'verify-receipt' || script === 'verify-audit';
  return path.resolve(asScript && process.env.INIT_CWD ? process.env.INIT_CWD : process.cwd(), file);
};

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** Why an address may not serve the key set, or null. `note` is said in the verdict when http is used. */
export function keySetAddressProblem(url: string): { problem: string } | { note?: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { problem: `${url} is not an address` };
  }
  if (u.protocol === 'https:') return {};
  if (u.protocol === 'http:' && LOOPBACK.test(u.hostname))
    return { note: `plain http accepted only because ${u.hostname} is this machine (local development)` };
  return { problem: `the key set must come over https (got ${u.protocol}//${u.host})` };
}

/** The well-known address of a service's published key set (audit and receipt-seal keys, ADR 0047). */
export const KEY_SET_PATH = '/.well-known/service-audit-jwks.json';

/**
 * The service a reader names (`--service https://verify.example`): its origin, and the address of the key set
 * it publishes there. Anything after the origin is ignored (and said), so a pasted page address works too.
 */
export function serviceOriginOf(
  arg: string,
): { origin: string; keySetUrl: string; note?: string } | { problem: string } {
  let u: URL;
  try {
    u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(arg) ? arg : `https://${arg}`);
  } catch {
    return { problem: `${arg} is not the address of a service (like https://verify.example)` };
  }
  const rule = keySetAddressProblem(u.origin);
  if ('problem' in rule) return rule;
  const keySetUrl = `${u.origin}${KEY_SET_PATH}`;
  const ignored = `${u.pathname}${u.search}`.replace(/^\/$/, '');
  const notes = [rule.note, ignored ? `only its origin counts: ${ignored} ignored` : undefined].filter(
    Boolean,
  );
  return { origin: u.origin, keySetUrl, ...(notes.length ? { note: notes.join('; ') } : {}) };
}

export async function readKeySet(
  source: string,
): Promise<{ jwks: JwkSet; from: string; note?: string } | { problem: string }> {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) {
    const rule = keySetAddressProblem(source);
    if ('problem' in rule) return rule;
    try {
      const res = await fetch(source, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(Number(process.env.VERIFY_KEY_SET_TIMEOUT_MS) || 15_000),
      });
      if (!res.ok) return { problem: `GET ${source} answered ${res.status}` };
      let jwks: JwkSet;
      try {
        jwks = (await res.json()) as JwkSet;
      } catch {
        return { problem: `${source} did not answer with a key set (not JSON)` };
      }
      if (!Array.isArray(jwks?.keys)) return { problem: `${source} is not a key set` };
      return { jwks, from: `the key set published at ${source}`, ...rule };
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      const why =
        (e as Error).name === 'TimeoutError' ? 'no answer in time' : (cause?.code ?? cause?.message);
      return { problem: `cannot fetch ${source} (${why ?? (e as Error).message})` };
    }
  }
  try {
    const jwks = JSON.parse(fs.readFileSync(callerPath(source), 'utf8')) as JwkSet;
    if (!Array.isArray(jwks?.keys)) return { problem: `${source} is not a key set` };
    return { jwks, from: `the saved key set ${source}` };
  } catch (e) {
    return { problem: `cannot read the key set ${source} (${(e as Error).message})` };
  }
}
