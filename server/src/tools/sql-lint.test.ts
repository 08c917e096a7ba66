// The SQL portability lint catches each construct TiDB or Vitess lack, in raw SQL, in TypeORM's schema API
// and in query builders / repository calls, ignores comments, honours allow comments only with a reason, and
// allows SKIP LOCKED only in the outbox claim.
import { describe, expect, it } from 'vitest';
import { lintFile } from './sql-lint';
import { entityTablesOf, lintSource, SESSION_TABLES } from './sql-lint-rules';

const opts = {
  sessionTables: SESSION_TABLES,
  entityTables: new Map([
    ['SessionEntity', 'session'],
    ['WorkflowEntity', 'workflow'],
  ]),
  outboxClaimFiles: /webhook\.relay\.ts$/,
};
const rules = (src: string, file = 'src/x.ts') => lintSource(file, src, opts).map((f) => f.rule);

describe('sql lint', () => {
  it.each([
    ['trigger', "await q.query('CREATE TRIGGER t BEFORE INSERT ON session FOR EACH ROW SET NEW.x = 1');"],
    [
      'trigger',
      `await q.query(\`CREATE DEFINER=root@localhost TRIGGER t AFTER UPDATE ON \${t} FOR EACH ROW BEGIN END\`);`,
    ],
    ['stored-routine', "await q.query('CREATE PROCEDURE p() BEGIN SELECT 1; END');"],
    ['stored-routine', "await q.query('CREATE FUNCTION f() RETURNS INT RETURN 1');"],
    ['stored-routine', "await q.query('CALL expire_sessions(?)', [1]);"],
    ['event', "await q.query('CREATE EVENT e ON SCHEDULE EVERY 1 MINUTE DO DELETE FROM x');"],
    [
      'foreign-key',
      "await q.query('ALTER TABLE step_result ADD CONSTRAINT fk FOREIGN KEY (session_id) REFERENCES session (id)');",
    ],
    ['foreign-key', "await q.query('CREATE TABLE a (b VARCHAR(40) REFERENCES session(id))');"],
    [
      'foreign-key',
      "await q.createForeignKey('step_result', new TableForeignKey({ columnNames: ['session_id'] }));",
    ],
    [
      'foreign-key',
      "await q.createTable(new Table({ name: 'a', columns: [], foreignKeys: [{ columnNames: ['b'] }] }));",
    ],
    ['lock-tables', "await q.query('LOCK TABLES session WRITE');"],
    ['lock-tables', "await q.query('SELECT GET_LOCK(?, 10)', ['sweeper']);"],
    ['skip-locked', "await m.query('SELECT id FROM workflow WHERE x = 1 FOR UPDATE SKIP LOCKED');"],
    ['skip-locked', "qb.setLock('pessimistic_write').setOnLocked('skip_locked');"],
    ['session-scope', "await ds.query('SELECT * FROM session WHERE id = ?', [id]);"],
    ['session-scope', `await ds.query(\`UPDATE session SET status = ? WHERE id = \${id}\`);`],
    ['session-scope', "await ds.query('DELETE FROM webhook_event WHERE session_id = ?', [id]);"],
    ['session-scope', 'await ds.getRepository(SessionEntity).findOneBy({ id });'],
    ['session-scope', "await m.getRepository(SessionEntity).update({ id }, { status: 'expired' });"],
    ['session-scope', 'await manager.findOne(SessionEntity, { where: { id } });'],
    [
      'session-scope',
      "await ds.getRepository(SessionEntity).createQueryBuilder('s').where('s.id = :id', { id }).getOne();",
    ],
  ])('catches %s: %s', (rule, src) => {
    expect(rules(src)).toContain(rule);
  });

  it.each([
    "await ds.query('SELECT * FROM session WHERE business_id = ? AND id = ?', [b, id]);",
    "await ds.query('INSERT INTO session (id, business_id) VALUES (?, ?)', [id, b]);",
    'await ds.getRepository(SessionEntity).findOneBy({ id, businessId });',
    "await ds.getRepository(SessionEntity).createQueryBuilder('s').where('s.business_id = :b', { b }).getMany();",
    'await ds.getRepository(SessionEntity).createQueryBuilder().insert().values(row).execute();',
    'await ds.getRepository(WorkflowEntity).findOneBy({ id });', // not a session table
    "await ds.query('SELECT id FROM workflow WHERE id = ? FOR UPDATE', [id]);",
    '// CREATE TRIGGER in a comment is not SQL\n/* FOR UPDATE SKIP LOCKED */ const x = 1;',
    "const msg = 'We select the best match for you';", // prose, not SQL
  ])('passes portable code: %s', (src) => {
    expect(rules(src)).toEqual([]);
  });

  it('allows SKIP LOCKED in the outbox claim only', () => {
    const src = "qb.setLock('pessimistic_write').setOnLocked('skip_locked');";
    expect(rules(src, 'src/modules/webhook/webhook.relay.ts')).toEqual([]);
    expect(rules(src, 'src/modules/session/session.service.ts')).toEqual(['skip-locked']);
  });

  it('honours an allow comment for its rule only, and only with a reason', () => {
    const q = 'await ds.getRepository(SessionEntity).findOneBy({ id });';
    expect(
      rules(`// sql-lint-allow: session-scope: by primary key, routed by a lookup vindex\n${q}`),
    ).toEqual([]);
    expect(rules(`// sql-lint-allow: foreign-key: some other rule entirely\n${q}`)).toEqual([
      'session-scope',
    ]);
    expect(rules(`// sql-lint-allow: session-scope\n${q}`)).toEqual([
      'allow-without-reason',
      'session-scope',
    ]);
    expect(rules(`// sql-lint-allow: session-scope: by primary key, far away\n\n\n\n\n${q}`)).toEqual([
      'session-scope',
    ]);
  });

  it('opens transactions in db/ only', () => {
    const src = 'await this.deps.ds.transaction(async (m) => m.query("SELECT 1"));';
    expect(rules(src, 'src/modules/accounts/accounts.service.ts')).toEqual(['transaction-opener']);
    expect(rules("await ds.transaction('READ COMMITTED', fn);", 'src/tools/operator.ts')).toEqual([
      'transaction-opener',
    ]);
    expect(rules(src, 'src/db/data-source.ts')).toEqual([]);
    expect(rules('await transactionWithRetry(this.deps.ds, fn);', 'src/modules/a/a.service.ts')).toEqual([]);
  });

  it('holds tests and their support modules to the transaction opener rule only', () => {
    const src = "await ds.transaction((m) => m.query('SELECT id FROM session'));";
    const of = (file: string) => lintFile(file, src, opts).map((f) => f.rule);
    expect(of('src/modules/a/a.service.ts')).toEqual(['transaction-opener', 'session-scope']);
    expect(of('src/modules/a/a.service.test.ts')).toEqual(['transaction-opener']);
    expect(of('src/modules/a/a.test-support.ts')).toEqual(['transaction-opener']);
    expect(lintFile('src/db/a.test.ts', src, opts)).toEqual([]);
  });

  it('reports file and line', () => {
    const f = lintSource(
      'src/m.ts',
      "const a = 1;\nawait q.query('CREATE TRIGGER t AFTER INSERT ON x FOR EACH ROW SET @a = 1');",
      opts,
    );
    expect(f).toEqual([expect.objectContaining({ file: 'src/m.ts', line: 2, rule: 'trigger' })]);
  });

  it('maps entity classes to their tables', () => {
    expect(entityTablesOf("@Entity('session')\n@Index('x', ['a'])\nexport class SessionEntity {}")).toEqual([
      ['SessionEntity', 'session'],
    ]);
  });
});
