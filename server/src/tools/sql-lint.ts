// `pnpm sql:lint`: the SQL portability lint over server/src (migrations and every query). Exit 1 on a
// finding. Rules and how queries are found: sql-lint-rules.ts; why: docs/adr/0016.
import fs from 'node:fs';
import path from 'node:path';
import { entityTablesOf, lintSource, SESSION_TABLES, type SqlLintFinding } from './sql-lint-rules';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.startsWith('sql-lint')
      ? [p]
      : [];
  });
}

export function lintRepository(): SqlLintFinding[] {
  const files = tsFiles(root);
  const texts = new Map(files.map((f) => [f, fs.readFileSync(f, 'utf8')]));
  const entityTables = new Map([...texts.values()].flatMap(entityTablesOf));
  const opts = {
    sessionTables: SESSION_TABLES,
    entityTables,
    outboxClaimFiles: /modules\/webhook\/(?:webhook\.relay|webhook\.outbox|outbox)[^/]*\.ts$/,
  };
  return files.flatMap((f) => lintSource(path.relative(path.dirname(root), f), texts.get(f) as string, opts));
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const findings = lintRepository();
  for (const f of findings) process.stdout.write(`${f.file}:${f.line}  ${f.rule}  ${f.message}\n`);
  process.stdout.write(`sql-lint: ${findings.length} finding(s)\n`);
  process.exit(findings.length ? 1 : 0);
}
