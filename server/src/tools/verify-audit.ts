// Command-line offline verification of an audit record:
//   tsx server/src/tools/verify-audit.ts <audit.json> <jwks.json | https://.../.well-known/service-audit-jwks.json>
// Prints OK or FAIL (with the reason) and exits 0 or 1. See modules/audit/verify.ts for the openssl recipe.
import fs from 'node:fs';
import { auditRecordProblem, type JwkSet } from '../modules/audit/verify';

async function readJwks(source: string): Promise<JwkSet> {
  if (/^https?:\/\//i.test(source)) {
    const res = await fetch(source, { headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(`GET ${source} answered ${res.status}`);
    return (await res.json()) as JwkSet;
  }
  return JSON.parse(fs.readFileSync(source, 'utf8')) as JwkSet;
}

async function main(argv: string[]): Promise<number> {
  const [auditFile, jwksSource] = argv;
  if (!auditFile || !jwksSource) {
    process.stderr.write('usage: verify-audit <audit.json> <jwks.json|jwks-url>\n');
    return 1;
  }
  try {
    const record = JSON.parse(fs.readFileSync(auditFile, 'utf8')) as unknown;
    const problem = auditRecordProblem(record, await readJwks(jwksSource));
    // The audit id embeds the session id (a capability): not printed.
    process.stdout.write(problem ? `FAIL: ${problem}\n` : 'OK\n');
    return problem ? 1 : 0;
  } catch (e) {
    process.stdout.write(`FAIL: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
