// Command-line verification of a receipt PDF (ADR 0027, ADR 0047), from the repository root or as the
// standalone `verify-receipt` of the verify/ package:
//   verify-receipt <receipt.pdf> --service https://verify.example   keys the service the reader names publishes
//   verify-receipt <receipt.pdf> --jwks <saved-jwks.json>             keys from a saved copy of that key set
//   verify-receipt <receipt.pdf>                                      what the file claims; NOT VERIFIED
//   verify-receipt <receipt.pdf> --self-consistent-only               keys inside the file: agrees with itself only
// Nothing written in the file (its keys, its key-set address, its name) is ever the trust anchor: only the
// service the reader names. Prints what the file claims, one line per check and a verdict that names the origin
// trusted. Exit 0: verified; 1: not (or no service named); 2: wrong usage.
import fs from 'node:fs';
import type { ReceiptData } from '../modules/receipt/receipt.document';
import { type ReceiptTrust, readReceipt, verifyReceiptPdf } from '../modules/receipt/receipt.verify';
import { callerPath, readKeySet, serviceOriginOf } from './jwks-source';

const USAGE =
  'usage: verify-receipt <receipt.pdf> --service <https://the-service-you-used.example>\n' +
  '       verify-receipt <receipt.pdf> --jwks <saved-jwks.json>\n' +
  '       verify-receipt <receipt.pdf> --self-consistent-only\n';

const NAME_ONE =
  'NOT VERIFIED: name the service you trust (--service https://… of the service you used, or --jwks with a ' +
  'key set you saved from it)';

/** The origin the file says issued it (never trusted: shown so the person can compare). */
function claimedOrigin(data: ReceiptData): string | null {
  for (const u of [data.verify_url, data.jwks_url]) {
    try {
      if (u) return new URL(String(u)).origin;
    } catch {}
  }
  return null;
}

function claims(data: ReceiptData): string[] {
  const steps = Array.isArray(data.steps) ? data.steps.length : 0;
  const total = data.session?.total_steps ?? steps;
  return [
    `The file says: issued by ${claimedOrigin(data) ?? '(no service address)'}` +
      `${data.business?.name ? ` for ${data.business.name}` : ''}; ${steps} of ${total} step(s); ` +
      `made ${String(data.generated_at ?? '?').slice(0, 10)}; receipt version ${data.version ?? '?'}.`,
    '(What a file says about itself proves nothing; only a check against the service you name does.)',
  ];
}

function take(args: string[], flag: string): { value?: string; bad: boolean } {
  const i = args.indexOf(flag);
  if (i < 0) return { bad: false };
  const value = args.splice(i, 2)[1];
  return { value, bad: !value || value.startsWith('--') };
}

async function main(argv: string[]): Promise<number> {
  const args = [...argv];
  const s = args.indexOf('--self-consistent-only');
  const selfOnly = s >= 0;
  if (selfOnly) args.splice(s, 1);
  const jwksArg = take(args, '--jwks');
  const serviceArg = take(args, '--service');
  const [file, ...rest] = args;
  const named = [jwksArg.value, serviceArg.value, selfOnly || undefined].filter(Boolean).length;
  if (!file || rest.length > 0 || jwksArg.bad || serviceArg.bad || named > 1) {
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
  const read = await readReceipt(pdf);
  if ('problem' in read) {
    say(`FAIL attachment: ${read.problem}`);
    say('RECEIPT NOT VERIFIED: this is not a receipt of the service as it made it (or the file is damaged)');
    return 1;
  }
  for (const line of claims(read.data)) say(line);

  let trust: ReceiptTrust;
  let trusted: string;
  if (selfOnly) {
    trust = { mode: 'self-consistent' };
    trusted = '';
    say('Keys: the copies inside the file (--self-consistent-only): this cannot show who signed it.');
  } else if (serviceArg.value || jwksArg.value) {
    let source = jwksArg.value as string;
    let note: string | undefined;
    if (serviceArg.value) {
      const svc = serviceOriginOf(serviceArg.value);
      if ('problem' in svc) {
        say(`FAIL service: ${svc.problem}`);
        say(`RECEIPT NOT VERIFIED: ${serviceArg.value} cannot be trusted as a service address`);
        return 1;
      }
      source = svc.keySetUrl;
      trusted = svc.origin;
      note = svc.note;
    } else {
      trusted = /^[a-z][a-z0-9+.-]*:\/\//i.test(source)
        ? new URL(source).origin
        : `the saved key set ${source}`;
    }
    const keys = await readKeySet(source);
    if ('problem' in keys) {
      say(`FAIL keys: ${keys.problem}`);
      say(
        `RECEIPT NOT VERIFIED: no key set of ${trusted} to check against (try again, or use --jwks with a saved copy)`,
      );
      return 1;
    }
    trust = { mode: 'published', jwks: keys.jwks, source: keys.from };
    const notes = [...new Set([note, keys.note].filter(Boolean))].join('; ');
    say(
      `Trusted: ${serviceArg.value ? `${trusted} (${keys.from})` : keys.from}${notes ? ` (${notes})` : ''}`,
    );
  } else {
    say(NAME_ONE);
    return 1;
  }

  const verdicts = await verifyReceiptPdf(pdf, trust);
  for (const v of verdicts) say(`${v.ok ? 'OK  ' : 'FAIL'} ${v.check}${v.detail ? `: ${v.detail}` : ''}`);
  const ok = verdicts.every((v) => v.ok);
  if (trust.mode === 'self-consistent') {
    say(
      ok
        ? 'SELF-CONSISTENT ONLY: the file agrees with itself. This does not prove that the service signed it.'
        : 'NOT SELF-CONSISTENT: the file does not even agree with itself.',
    );
    say(NAME_ONE);
    return 1;
  }
  if (ok) {
    say(`RECEIPT VERIFIED against ${trusted}`);
    return 0;
  }
  const claimed = claimedOrigin(read.data);
  const isOrigin = trusted.includes('://');
  say(
    isOrigin && claimed && claimed !== trusted
      ? `RECEIPT NOT VERIFIED: this receipt was not issued by ${trusted} (it names ${claimed})`
      : `RECEIPT NOT VERIFIED against ${trusted}: the file is not as ${isOrigin ? 'that service' : 'the service of that key set'} made it (see FAIL above)`,
  );
  return 1;
}

process.exitCode = await main(process.argv.slice(2)).catch((e: unknown) => {
  process.stdout.write(`FAIL ${e instanceof Error ? e.message : String(e)}\nRECEIPT NOT VERIFIED\n`);
  return 1;
});
