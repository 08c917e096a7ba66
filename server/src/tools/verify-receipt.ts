// Command-line verification of a receipt PDF (ADR 0027), from the repository root:
//   pnpm --silent verify-receipt <receipt.pdf>                       keys from the address on the receipt (https)
//   pnpm --silent verify-receipt <receipt.pdf> --jwks <jwks.json|url>  keys from a saved copy (or another address)
//   pnpm --silent verify-receipt <receipt.pdf> --self-consistent-only  keys inside the file: agrees with itself only
// Prints one line per check and a verdict. Exit 0: verified (or, with --self-consistent-only, self-consistent);
// 1: not; 2: wrong usage. `--silent` keeps pnpm's own lines away from the verdict.
import fs from 'node:fs';
import { type ReceiptTrust, readReceipt, verifyReceiptPdf } from '../modules/receipt/receipt.verify';
import { callerPath, readKeySet } from './jwks-source';

const USAGE =
  'usage: verify-receipt <receipt.pdf> [--jwks <saved-jwks.json | https://…/.well-known/service-audit-jwks.json>]\n' +
  '       verify-receipt <receipt.pdf> --self-consistent-only\n';

async function main(argv: string[]): Promise<number> {
  const args = [...argv];
  const s = args.indexOf('--self-consistent-only');
  const selfOnly = s >= 0;
  if (selfOnly) args.splice(s, 1);
  const j = args.indexOf('--jwks');
  const jwksSource = j >= 0 ? args.splice(j, 2)[1] : undefined;
  const [file, ...rest] = args;
  if (!file || rest.length > 0 || (j >= 0 && !jwksSource) || (selfOnly && jwksSource)) {
    process.stderr.write(USAGE);
    return 2;
  }
  const say = (line: string) => process.stdout.write(`${line}\n`);
  let pdf: Buffer;
  try {
    pdf = fs.readFileSync(callerPath(file));
  } catch (e) {
    say(`FAIL cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    say('RECEIPT NOT VERIFIED');
    return 1;
  }

  let trust: ReceiptTrust;
  if (selfOnly) {
    trust = { mode: 'self-consistent' };
    say('Keys: the copies inside the file (--self-consistent-only): this cannot show who signed it.');
  } else {
    let source = jwksSource;
    if (!source) {
      const read = await readReceipt(pdf);
      if ('problem' in read) {
        say(`FAIL attachment: ${read.problem}`);
        say('RECEIPT NOT VERIFIED');
        return 1;
      }
      source = String(read.data.jwks_url ?? '');
    }
    const keys = await readKeySet(source);
    if ('problem' in keys) {
      say(`FAIL keys: ${keys.problem}`);
      say('RECEIPT NOT VERIFIED (no key set of the service to check against; give a saved one with --jwks)');
      return 1;
    }
    trust = { mode: 'published', jwks: keys.jwks, source: keys.from };
    say(`Keys: ${keys.from}${keys.note ? ` (${keys.note})` : ''}`);
  }

  const verdicts = await verifyReceiptPdf(pdf, trust);
  for (const v of verdicts) say(`${v.ok ? 'OK  ' : 'FAIL'} ${v.check}${v.detail ? `: ${v.detail}` : ''}`);
  const ok = verdicts.every((v) => v.ok);
  if (trust.mode === 'self-consistent') {
    say(
      ok
        ? 'SELF-CONSISTENT ONLY: the file agrees with itself. This does not prove that the service signed it; ' +
            "check it against the service's published keys (without --self-consistent-only)."
        : 'NOT SELF-CONSISTENT: the file does not even agree with itself.',
    );
  } else {
    say(ok ? `RECEIPT VERIFIED against ${trust.source}` : 'RECEIPT NOT VERIFIED');
  }
  return ok ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2)).catch((e: unknown) => {
  process.stdout.write(`FAIL ${e instanceof Error ? e.message : String(e)}\nRECEIPT NOT VERIFIED\n`);
  return 1;
});
