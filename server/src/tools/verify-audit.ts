// Command-line verification of an audit record, from the repository root:
//   pnpm --silent verify-audit <audit.json> <saved-jwks.json | https://…/.well-known/service-audit-jwks.json>
// Prints OK or FAIL (with the reason) and exits 0 or 1 (2: wrong usage). The key set is the service's published
// one, saved or fetched over https (plain http only for this machine). See modules/audit/verify.ts and the
// README for the openssl recipe. `--silent` keeps pnpm's own lines away from the verdict.
import fs from 'node:fs';
import { auditRecordProblem } from '../modules/audit/verify';
import { callerPath, readKeySet } from './jwks-source';

async function main(argv: string[]): Promise<number> {
  const [auditFile, jwksSource, ...rest] = argv;
  if (!auditFile || !jwksSource || rest.length > 0) {
    process.stderr.write(
      'usage: verify-audit <audit.json> <saved-jwks.json | https://…/service-audit-jwks.json>\n',
    );
    return 2;
  }
  let record: unknown;
  try {
    record = JSON.parse(fs.readFileSync(callerPath(auditFile), 'utf8')) as unknown;
  } catch (e) {
    process.stdout.write(`FAIL: cannot read ${auditFile} as JSON (${(e as Error).message})\n`);
    return 1;
  }
  const keys = await readKeySet(jwksSource);
  if ('problem' in keys) {
    process.stdout.write(`FAIL: ${keys.problem}\n`);
    return 1;
  }
  const problem = auditRecordProblem(record, keys.jwks);
  // The audit id embeds the session id (a capability): not printed.
  process.stdout.write(
    problem ? `FAIL: ${problem}\n` : `OK (${keys.from}${keys.note ? `; ${keys.note}` : ''})\n`,
  );
  return problem ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2)).catch((e: unknown) => {
  process.stdout.write(`FAIL: ${e instanceof Error ? e.message : String(e)}\n`);
  return 1;
});
