// `pnpm sql:lint`: the SQL portability lint over server/src (migrations and every query). Exit 1 on a
// finding. Rules and how queries are found: sql-lint-rules.ts; why: docs/adr/0016. Test files are held to the
// one rule that is about how code runs rather than what SQL it ships: transactions open only through db/.
import fs from 'node:fs';
import path from 'node:path';
import {
  entityTablesOf,
  lintSource,
  SESSION_TABLES,
  type SqlLintFinding,
  type SqlLintOptions,
} from './sql-lint-rules';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
/** The repository's integration tests and their support: held to transaction-opener like any test file. */
const repoTests = path.resolve(root, '../../test');

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith('.ts') && !e.name.startsWith('sql-lint') ? [p] : [];
  });
}

/** Tests and their support modules (`x.test.ts`, `x.test-support.ts`): not shipped, so only transaction-opener. */
export const isTestFile = (file: string) =>
  /\.test(?:-support)?\.ts$/.test(file) || /^(?:\.\.\/)?test\//.test(file.split(path.sep).join('/'));

export function lintFile(file: string, text: string, opts: SqlLintOptions): SqlLintFinding[] {
  const found = lintSource(file, text, opts);
  return isTestFile(file) ? found.filter((f) => f.rule === 'transaction-opener') : found;
}

export function lintRepository(): SqlLintFinding[] {
  const files = [...tsFiles(root), ...(fs.existsSync(repoTests) ? tsFiles(repoTests) : [])];
  const texts = new Map(files.map((f) => [f, fs.readFileSync(f, 'utf8')]));
  const entityTables = new Map(
    files.filter((f) => !isTestFile(f)).flatMap((f) => entityTablesOf(texts.get(f) as string)),
  );
  const opts = {
    sessionTables: SESSION_TABLES,
    entityTables,
    outboxClaimFiles: /modules\/webhook\/(?:webhook\.relay|webhook\.outbox|outbox)[^/]*\.ts$/,
  };
  return files.flatMap((f) => lintFile(path.relative(path.dirname(root), f), texts.get(f) as string, opts));
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const findings = lintRepository();
  for (const f of findings) process.stdout.write(`${f.file}:${f.line}  ${f.rule}  ${f.message}\n`);
  process.stdout.write(`sql-lint: ${findings.length} finding(s)\n`);
  process.exit(findings.length ? 1 : 0);
}
