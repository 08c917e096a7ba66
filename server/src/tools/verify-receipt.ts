// Command-line offline verification of a receipt PDF:
//   pnpm --filter server verify-receipt <receipt.pdf> [--jwks <jwks.json | https://.../.well-known/service-audit-jwks.json>]
// Extracts the attached receipt.json, recomputes each step's digests and the hash chain, checks each
// service_signature with the key embedded in the receipt (or with the given live key set), and checks that the
// PDF is exactly the rendering of its JSON. Prints one verdict per check; exits 1 on any failure.
import fs from 'node:fs';
import path from 'node:path';
import type { JwkSet } from '../modules/audit/verify';
import { verifyReceiptPdf } from '../modules/receipt/receipt.verify';

async function readJwks(source: string): Promise<JwkSet> {
  if (/^https?:\/\//i.test(source)) {
    const res = await fetch(source, { headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(`GET ${source} answered ${res.status}`);
    return (await res.json()) as JwkSet;
  }
  return JSON.parse(fs.readFileSync(source, 'utf8')) as JwkSet;
}

async function main(argv: string[]): Promise<number> {
  const args = [...argv];
  const j = args.indexOf('--jwks');
  const jwksSource = j >= 0 ? args.splice(j, 2)[1] : undefined;
  const [file] = args;
  if (!file || (j >= 0 && !jwksSource)) {
    process.stderr.write('usage: verify-receipt <receipt.pdf> [--jwks <jwks.json|jwks-url>]\n');
    return 2;
  }
  try {
    // pnpm --filter runs in server/: resolve relative paths against the caller's directory
    const base = process.env.INIT_CWD ?? process.cwd();
    const pdf = fs.readFileSync(path.resolve(base, file));
    const verdicts = await verifyReceiptPdf(pdf, jwksSource ? await readJwks(jwksSource) : undefined);
    for (const v of verdicts)
      process.stdout.write(`${v.ok ? 'OK  ' : 'FAIL'} ${v.check}${v.detail ? `: ${v.detail}` : ''}\n`);
    const ok = verdicts.every((v) => v.ok);
    process.stdout.write(ok ? 'RECEIPT VERIFIED\n' : 'RECEIPT NOT VERIFIED\n');
    return ok ? 0 : 1;
  } catch (e) {
    process.stdout.write(`FAIL: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
