// Owns the SQL portability lint (`pnpm sql:lint`): finds constructs that TiDB or Vitess, the internet-scale
// targets, lack or treat differently, in the migrations and in every query of server/src. How it finds
// queries: it parses each TypeScript file (the TypeScript compiler's own parser, no type checking) and looks
// at (1) every string and template literal that reads as SQL, (2) TypeORM query-builder chains
// (`setOnLocked('skip_locked')`) and (3) repository calls on the session tables (`getRepository(Entity).x(...)`,
// `manager.x(Entity, ...)`), judged by the text of their arguments / chain. Comments are never linted.
// Known blind spot: a repository held in a variable (`const repo = getRepository(E); repo.update(...)`).
// A finding is silenced only by `// sql-lint-allow: <rule>: <reason>` on its line or the 3 lines above it;
// an allow comment without a reason is itself a finding.
import ts from 'typescript';

export type SqlLintRule =
  | 'trigger'
  | 'stored-routine'
  | 'event'
  | 'foreign-key'
  | 'skip-locked'
  | 'session-scope'
  | 'lock-tables'
  | 'transaction-opener'
  | 'allow-without-reason';

export interface SqlLintFinding {
  file: string;
  line: number;
  rule: SqlLintRule;
  message: string;
}

export interface SqlLintOptions {
  /** Tables sharded by business: every read/update/delete must name business_id (the shard key). */
  sessionTables: readonly string[];
  /** Entity class name -> table name (from `@Entity('table')`). */
  entityTables: ReadonlyMap<string, string>;
  /** Files where SKIP LOCKED is the outbox claim (an optimisation only; correctness rests on the lease). */
  outboxClaimFiles: RegExp;
}

/** Tables whose rows belong to one business's sessions: the shard key of a distributed deployment. */
export const SESSION_TABLES = [
  'session',
  'step_result',
  'audit_record',
  'step_evidence',
  'wallet_request',
  'webhook_event',
  'webhook_attempt',
] as const;

const RAW_RULES: { rule: SqlLintRule; re: RegExp; message: string }[] = [
  {
    rule: 'trigger',
    re: /\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:DEFINER\s*=\s*\S+\s+)?TRIGGER\b/i,
    message: 'triggers are not supported by TiDB or Vitess: do the work in the transaction that writes',
  },
  {
    rule: 'stored-routine',
    re: /\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:DEFINER\s*=\s*\S+\s+)?(?:PROCEDURE|FUNCTION)\b|\bCALL\s+`?\w+`?\s*\(/i,
    message: 'stored procedures/functions are not supported by TiDB or Vitess: keep logic in the service',
  },
  {
    rule: 'event',
    re: /\bCREATE\s+(?:DEFINER\s*=\s*\S+\s+)?EVENT\b/i,
    message: 'scheduled events are not supported by TiDB or Vitess: use a worker (like the sweeper)',
  },
  {
    rule: 'foreign-key',
    re: /\bFOREIGN\s+KEY\b|\bREFERENCES\s+`?\w+`?\s*\(/i,
    message: 'foreign keys cannot span Vitess shards (and TiDB < 8.5 ignores them): enforce in the service',
  },
  {
    rule: 'lock-tables',
    re: /\bLOCK\s+TABLES?\b|\bGET_LOCK\s*\(/i,
    message: 'table locks and named locks are not portable to Vitess: use a guarded update (compare-and-set)',
  },
];

const SKIP_LOCKED = /\bSKIP\s+LOCKED\b/i;
const SQL_START =
  /^\s*(?:SELECT|INSERT|UPDATE|DELETE|REPLACE|CREATE|ALTER|DROP|WITH|CALL|LOCK|SET\s+@|TRUNCATE)\b/i;
const SHARD_KEY = /\bbusiness_?id\b|\bbusinessId\b/i;
const REPO_METHODS = new Set([
  'find',
  'findOne',
  'findBy',
  'findOneBy',
  'findOneOrFail',
  'findOneByOrFail',
  'findAndCount',
  'count',
  'countBy',
  'exists',
  'existsBy',
  'update',
  'delete',
  'softDelete',
  'increment',
  'decrement',
  'createQueryBuilder',
]);

const ALLOW = /sql-lint-allow:\s*([\w-]+)\s*(?::\s*(.*))?$/;

/** The tables a raw statement reads or writes (FROM, JOIN, UPDATE, INTO, DELETE FROM). */
function tablesOf(sql: string): string[] {
  const out: string[] = [];
  for (const m of sql.matchAll(/\b(?:FROM|JOIN|UPDATE|INTO)\s+`?(\w+)`?/gi))
    out.push((m[1] as string).toLowerCase());
  return out;
}

function sqlText(node: ts.Node): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node))
    return [node.head.text, ...node.templateSpans.map((s) => `? ${s.literal.text}`)].join('');
  return undefined;
}

/** Lints one TypeScript file (a migration or any server source). */
export function lintSource(file: string, text: string, opts: SqlLintOptions): SqlLintFinding[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lines = text.split('\n');
  const raw: SqlLintFinding[] = [];
  const at = (node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  const add = (node: ts.Node, rule: SqlLintRule, message: string) =>
    raw.push({ file, line: at(node), rule, message });
  const sessionTables = new Set(opts.sessionTables);
  const isClaimFile = opts.outboxClaimFiles.test(file);
  const isDbLayer = /(?:^|\/)src\/db\//.test(file);

  const visit = (node: ts.Node): void => {
    // (1) SQL in literals; nested template parts are part of their parent's text
    const sql = ts.isTemplateSpan(node.parent ?? node) ? undefined : sqlText(node);
    if (
      sql !== undefined &&
      (SQL_START.test(sql) || SKIP_LOCKED.test(sql) || /\bFOREIGN\s+KEY\b/i.test(sql))
    ) {
      for (const r of RAW_RULES) if (r.re.test(sql)) add(node, r.rule, r.message);
      if (SKIP_LOCKED.test(sql) && !isClaimFile)
        add(node, 'skip-locked', 'SKIP LOCKED outside the outbox claim: TiDB accepts it without locking');
      if (/^\s*(?:SELECT|UPDATE|DELETE|WITH)\b/i.test(sql)) {
        const hit = tablesOf(sql).find((t) => sessionTables.has(t));
        if (hit && !SHARD_KEY.test(sql))
          add(node, 'session-scope', `a query on ${hit} without business_id cannot be routed to one shard`);
      }
    }
    // (2) TypeORM schema API in migrations: foreign keys
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const callee = node.expression.getText(sf);
      if (/(?:^|\.)createForeignKeys?$|^TableForeignKey$/.test(callee))
        add(node, 'foreign-key', 'foreign keys cannot span Vitess shards: enforce in the service');
    }
    if (ts.isPropertyAssignment(node) && node.name.getText(sf) === 'foreignKeys') {
      if (!ts.isArrayLiteralExpression(node.initializer) || node.initializer.elements.length > 0)
        add(node, 'foreign-key', 'foreign keys cannot span Vitess shards: enforce in the service');
    }
    // (4) one transaction opener: db/ (transactionWithRetry / inTransaction: joins the caller's transaction,
    // re-runs a Galera certification conflict or a deadlock); a bare `.transaction(` elsewhere has no retry
    if (
      !isDbLayer &&
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'transaction'
    )
      add(
        node,
        'transaction-opener',
        'open transactions through db/data-source.ts (transactionWithRetry or inTransaction), not .transaction(',
      );
    // (2) query builder: setOnLocked('skip_locked')
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'setOnLocked' &&
      /skip_locked/.test(node.arguments.map((a) => a.getText(sf)).join(',')) &&
      !isClaimFile
    )
      add(node, 'skip-locked', 'SKIP LOCKED outside the outbox claim: TiDB accepts it without locking');
    // (3) repository / manager calls on session tables
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const target = node.expression.expression;
      let entity: string | undefined;
      let args: readonly ts.Expression[] = node.arguments;
      if (
        ts.isCallExpression(target) &&
        ts.isPropertyAccessExpression(target.expression) &&
        target.expression.name.text === 'getRepository' &&
        target.arguments[0] &&
        ts.isIdentifier(target.arguments[0])
      ) {
        entity = target.arguments[0].text;
      } else if (
        /manager$|^m$|^em$|^tx$/i.test(target.getText(sf)) &&
        node.arguments[0] &&
        ts.isIdentifier(node.arguments[0])
      ) {
        entity = node.arguments[0].text;
        args = node.arguments.slice(1);
      }
      const table = entity ? opts.entityTables.get(entity) : undefined;
      if (table && sessionTables.has(table) && REPO_METHODS.has(method)) {
        // a query builder is judged on its whole chain, other calls on their arguments
        let chain: ts.Node = node;
        if (method === 'createQueryBuilder')
          while (
            (ts.isPropertyAccessExpression(chain.parent) || ts.isCallExpression(chain.parent)) &&
            !ts.isExpressionStatement(chain.parent)
          )
            chain = chain.parent;
        const judged =
          method === 'createQueryBuilder' ? chain.getText(sf) : args.map((a) => a.getText(sf)).join(',');
        const isInsertBuilder = method === 'createQueryBuilder' && /\.insert\(\)/.test(judged);
        if (!isInsertBuilder && !SHARD_KEY.test(judged))
          add(
            node,
            'session-scope',
            `${entity}.${method} on ${table} without businessId cannot be routed to one shard`,
          );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);

  // allow comments: same line or the 3 lines above; a reason is required
  const out: SqlLintFinding[] = [];
  for (const [i, l] of lines.entries()) {
    const m = ALLOW.exec(l);
    if (m && !(m[2] && m[2].trim().length >= 10))
      out.push({ file, line: i + 1, rule: 'allow-without-reason', message: 'sql-lint-allow needs a reason' });
  }
  for (const f of raw) {
    const allowed = lines.slice(Math.max(0, f.line - 4), f.line).some((l) => {
      const m = ALLOW.exec(l);
      return m?.[1] === f.rule && (m[2]?.trim().length ?? 0) >= 10;
    });
    if (!allowed && !out.some((o) => o.line === f.line && o.rule === f.rule)) out.push(f);
  }
  return out.sort((a, b) => a.line - b.line);
}

/** `@Entity('table') ... class Name` pairs of one file. */
export function entityTablesOf(text: string): [string, string][] {
  const out: [string, string][] = [];
  for (const m of text.matchAll(/@Entity\(\s*'(\w+)'[^)]*\)[\s\S]*?export\s+class\s+(\w+)/g))
    out.push([m[2] as string, m[1] as string]);
  return out;
}
