// The batched transactions of the session transitions (ADR 0058) on real MariaDB: what a unit writes is what
// committed, a unit that fails leaves nothing, a deferred write's error fails its unit, the round trips are the
// ones the ADR counts, the API's own pool still refuses a second statement in one query, and the strict
// single-connection mode still fires inside a batched transaction.
import 'reflect-metadata';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataSource } from '../app/database';
import { createTestDatabase, type TestDatabase } from '../app/test-database';
import { countStatements, type StatementCounter } from '../tools/bench/statements';
import {
  batchedTransactionWithRetry,
  deferIfBatched,
  enableBatchedTransactions,
  isLostGuard,
} from './batched-transaction';
import { later, laterChecked, laterGuarded, sql } from './fast-sql';
import { guardDataSource } from './pool-guard';
import { STRICT_VIOLATION } from './strict-connection';

const mysqlOnly = process.env.TEST_ENGINE === 'embedded';

describe.skipIf(mysqlOnly)('batched transactions (MariaDB)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let counter: StatementCounter;

  beforeAll(async () => {
    db = await createTestDatabase('batched');
    ds = await createDataSource({ databaseUrl: db.url, dataDir: '/nonexistent' });
    await ds.initialize();
    await ds.query('CREATE TABLE t (id VARCHAR(20) PRIMARY KEY, v INT NOT NULL)');
    guardDataSource(ds, { acquireTimeoutMs: 2000, queryTimeoutMs: 5000, strictSingleConnection: true });
    enableBatchedTransactions(ds, { poolSize: 2, acquireTimeoutMs: 2000 });
    counter = await countStatements(ds);
  });
  afterAll(async () => {
    counter?.close();
    await ds?.destroy();
    await db?.drop();
  });

  const rows = async () =>
    (await sql<{ id: string; v: number }[]>(ds, 'SELECT id, v FROM t ORDER BY id', [])).map((r) => ({
      ...r,
    }));
  const clear = () => sql(ds, 'DELETE FROM t', []);

  it('writes that decide nothing go with the COMMIT: one round trip for the whole unit', async () => {
    await clear();
    counter.reset();
    await batchedTransactionWithRetry(ds, async (m) => {
      await later(ds, 'INSERT INTO t (id, v) VALUES (?, ?)', ['a', 1], m);
      await later(ds, 'INSERT INTO t (id, v) VALUES (?, ?)', ["b'; DROP TABLE t; --", 2], m);
    });
    expect(counter.count()).toBe(1);
    expect(counter.statements()).toBe(4); // START TRANSACTION, two INSERTs, COMMIT
    // a value is a value, never a statement of its own
    expect(await rows()).toEqual([
      { id: 'a', v: 1 },
      { id: "b'; DROP TABLE t; --", v: 2 },
    ]);
  });

  it('a statement whose answer decides carries BEGIN and the writes before it, and answers its own result', async () => {
    await clear();
    await sql(ds, 'INSERT INTO t (id, v) VALUES (?, ?)', ['a', 1]);
    counter.reset();
    const changed = await batchedTransactionWithRetry(ds, async (m) => {
      await later(ds, 'INSERT INTO t (id, v) VALUES (?, ?)', ['b', 2], m);
      const res = await sql<{ affectedRows: number }>(ds, 'UPDATE t SET v = v + 10 WHERE v < ?', [5], m);
      const read = await sql<{ n: number }[]>(ds, 'SELECT COUNT(*) AS n FROM t WHERE v > ?', [10], m);
      await later(ds, 'INSERT INTO t (id, v) VALUES (?, ?)', ['c', 3], m);
      return { affected: res.affectedRows, n: Number(read[0]?.n) };
    });
    // both rows seen by the UPDATE: the INSERT before it ran first, in the same transaction
    expect(changed).toEqual({ affected: 2, n: 2 });
    expect(counter.count()).toBe(3); // START+INSERT+UPDATE, SELECT, INSERT+COMMIT
    expect(counter.statements()).toBe(6);
    expect(await rows()).toEqual([
      { id: 'a', v: 11 },
      { id: 'b', v: 12 },
      { id: 'c', v: 3 },
    ]);
  });

  it('a unit that throws leaves nothing, and sends nothing when nothing was sent yet', async () => {
    await clear();
    counter.reset();
    await expect(
      batchedTransactionWithRetry(ds, async (m) => {
        await later(ds, 'INSERT INTO t (id, v) VALUES (?, ?)', ['a', 1], m);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(counter.count()).toBe(0);
    await expect(
      batchedTransactionWithRetry(ds, async (m) => {
        await later(ds, 'INSERT INTO t (id, v) VALUES (?, ?)', ['a', 1], m);
        await sql(ds, 'UPDATE t SET v = 2 WHERE id = ?', ['a'], m);
        throw new Error('lost');
      }),
    ).rejects.toThrow('lost');
    expect(await rows()).toEqual([]);
  });

  it("a deferred write's error is raised by the round trip that carries it, and its unit rolls back whole", async () => {
    await clear();
    await sql(ds, 'INSERT INTO t (id, v) VALUES (?, ?)', ['dup', 0]);
    await expect(
      batchedTransactionWithRetry(ds, async (m) => {
        await sql(ds, 'UPDATE t SET v = 5 WHERE id = ?', ['dup'], m);
        await later(ds, 'INSERT INTO t (id, v) VALUES (?, ?)', ['new', 1], m);
        await later(ds, 'INSERT INTO t (id, v) VALUES (?, ?)', ['dup', 1], m);
      }),
    ).rejects.toMatchObject({ driverError: { code: 'ER_DUP_ENTRY' } });
    expect(await rows()).toEqual([{ id: 'dup', v: 0 }]);
    // the connection went back clean: the next unit commits normally
    await batchedTransactionWithRetry(ds, (m) =>
      later(ds, 'INSERT INTO t (id, v) VALUES (?, ?)', ['x', 9], m),
    );
    expect(await rows()).toEqual([
      { id: 'dup', v: 0 },
      { id: 'x', v: 9 },
    ]);
  });

  it('a checked write decides before the answer of the round trip carrying it; COMMIT writes come after', async () => {
    await clear();
    await sql(ds, 'INSERT INTO t (id, v) VALUES (?, ?)', ['req', 0]);
    // the completion's shape (ADR 0058 amendment): consume a single-use row, keep the record for the COMMIT,
    // then a statement that needs an answer
    const complete = () =>
      batchedTransactionWithRetry(ds, async (m) => {
        await laterChecked(ds, 'UPDATE t SET v = 1 WHERE id = ? AND v = 0', ['req'], m, (r) => {
          if (r.affectedRows !== 1) throw new Error('already used');
        });
        deferIfBatched(m, 'INSERT INTO t (id, v) VALUES (?, ?)', ['record', 7], { atCommit: true });
        return sql<{ n: number }[]>(ds, 'SELECT COUNT(*) AS n FROM t WHERE v = ?', [1], m);
      });
    counter.reset();
    await complete();
    expect(counter.count()).toBe(2); // START+UPDATE+SELECT, INSERT+COMMIT
    // used again: the check's answer, not the record's duplicate key, and nothing written
    await expect(complete()).rejects.toThrow('already used');
    expect(await rows()).toEqual([
      { id: 'record', v: 7 },
      { id: 'req', v: 1 },
    ]);
  });

  it('a read kept for the COMMIT sees every write of the unit and reaches its caller only when it committed', async () => {
    await clear();
    await sql(ds, 'INSERT INTO t (id, v) VALUES (?, ?)', ['s', 1]);
    // the page's read after a transition (ADR 0062 amendment): the guarded move, a write kept for the COMMIT,
    // then the read, all in the COMMIT's round trip
    const unit = (from: number, seen: (rows: unknown[]) => void) =>
      batchedTransactionWithRetry(ds, async (m) => {
        await laterGuarded(ds, 'UPDATE t SET v = ? WHERE id = ?', 't', 'v = ?', [from + 1, 's', from], m);
        deferIfBatched(m, 'INSERT INTO t (id, v) VALUES (?, ?)', [`r${from}`, from], { atCommit: true });
        deferIfBatched(m, 'SELECT id, v FROM t ORDER BY id', [], { atCommit: true, collect: seen });
      });
    let read: unknown[] | undefined;
    counter.reset();
    await unit(1, (r) => {
      read = r;
    });
    // START, the UPDATE, its check, the INSERT, the read and COMMIT: one round trip
    expect(counter.count()).toBe(1);
    expect(counter.statements()).toBe(6);
    expect((read as { id: string; v: number }[]).map((r) => ({ ...r }))).toEqual([
      { id: 'r1', v: 1 },
      { id: 's', v: 2 },
    ]);
    // a unit that lost its guard never ran the read: nothing reaches the caller, nothing was written
    let lostRead: unknown[] | undefined;
    const lost = await unit(1, (r) => {
      lostRead = r;
    }).catch((e: unknown) => e);
    expect(isLostGuard(lost)).toBe(true);
    expect(lostRead).toBeUndefined();
    // a COMMIT round trip that fails (the kept INSERT's duplicate key) hands over no rows either
    await sql(ds, 'UPDATE t SET v = 1 WHERE id = ?', ['s']);
    let failedRead: unknown[] | undefined;
    await expect(
      unit(1, (r) => {
        failedRead = r;
      }),
    ).rejects.toThrow(/Duplicate/);
    expect(failedRead).toBeUndefined();
    expect(await rows()).toEqual([
      { id: 'r1', v: 1 },
      { id: 's', v: 1 },
    ]);
  });

  it('a guarded write travels with the writes after it and the COMMIT; a false guard stops the batch there', async () => {
    await clear();
    await sql(ds, 'INSERT INTO t (id, v) VALUES (?, ?)', ['s', 1]);
    // a transition's shape (ADR 0058 amendment 3): the guarded move, then a write that decides nothing
    const move = (from: number, row: string) =>
      batchedTransactionWithRetry(ds, async (m) => {
        const changed = await laterGuarded(
          ds,
          'UPDATE t SET v = ? WHERE id = ?',
          't',
          'v = ?',
          [from + 1, 's', from],
          m,
        );
        await later(ds, 'INSERT INTO t (id, v) VALUES (?, ?)', [row, from], m);
        return changed;
      });
    counter.reset();
    expect(await move(1, 'first')).toBe(1);
    // START, the guarded UPDATE, the INSERT carrying its check (ADR 0073) and COMMIT in one round trip
    expect(counter.count()).toBe(1);
    expect(counter.statements()).toBe(4);
    // from a version that is gone: the guard stops the batch on the server, nothing after it runs
    const lost = await move(1, 'second').catch((e: unknown) => e);
    expect(isLostGuard(lost)).toBe(true);
    expect(await rows()).toEqual([
      { id: 'first', v: 1 },
      { id: 's', v: 2 },
    ]);
    // the lost unit was rolled back: the connection goes back clean and the next unit commits
    expect(await move(2, 'third')).toBe(1);
    expect(await rows()).toEqual([
      { id: 'first', v: 1 },
      { id: 's', v: 3 },
      { id: 'third', v: 2 },
    ]);
    // a row that is not there is a lost guard too (the check counts the rows the write matched)
    const gone = await batchedTransactionWithRetry(ds, (m) =>
      laterGuarded(ds, 'UPDATE t SET v = ? WHERE id = ?', 't', 'v = ?', [4, 'absent', 3], m),
    ).catch((e: unknown) => e);
    expect(isLostGuard(gone)).toBe(true);
    // outside a batched transaction the guard is the bare condition, answered at once
    expect(
      await laterGuarded(ds, 'UPDATE t SET v = ? WHERE id = ?', 't', 'v = ?', [9, 's', 1], ds.manager),
    ).toBe(0);
    expect(
      await laterGuarded(ds, 'UPDATE t SET v = ? WHERE id = ?', 't', 'v = ?', [4, 's', 3], ds.manager),
    ).toBe(1);
  });

  it('the INSERT after a guarded write carries its check: a lost guard inserts none of it (ADR 0073)', async () => {
    await clear();
    await sql(ds, 'INSERT INTO t (id, v) VALUES (?, ?)', ['s', 1]);
    const move = (from: number, rows: string[], then?: 'update' | 'commit-only') =>
      batchedTransactionWithRetry(ds, async (m) => {
        await laterGuarded(ds, 'UPDATE t SET v = ? WHERE id = ?', 't', 'v = ?', [from + 1, 's', from], m);
        if (then === 'update') await later(ds, 'UPDATE t SET v = v + 10 WHERE id = ?', ['s'], m);
        const insert = `INSERT INTO t (id, v) VALUES ${rows.map(() => '(?, ?)').join(', ')}`;
        const values = rows.flatMap((r) => [r, from]);
        // kept for the COMMIT: the check goes right after the guarded write, before it
        if (then === 'commit-only') deferIfBatched(m, insert, values, { atCommit: true });
        else await later(ds, insert, values, m);
      });
    counter.reset();
    await move(1, ['a1', 'a2', 'a3']);
    expect(counter.statements()).toBe(4); // START, UPDATE, the three rows' INSERT with the check, COMMIT
    const lost = await move(1, ['b1', 'b2', 'b3']).catch((e: unknown) => e);
    expect(isLostGuard(lost)).toBe(true);
    expect(await rows()).toEqual([
      { id: 'a1', v: 1 },
      { id: 'a2', v: 1 },
      { id: 'a3', v: 1 },
      { id: 's', v: 2 },
    ]);
    // an UPDATE after the guarded write: the check is a statement of its own between them
    counter.reset();
    await move(2, ['c1'], 'update');
    expect(counter.statements()).toBe(6);
    expect(isLostGuard(await move(2, ['d1'], 'update').catch((e: unknown) => e))).toBe(true);
    counter.reset();
    await move(13, ['e1'], 'commit-only');
    expect(counter.statements()).toBe(5);
    expect(isLostGuard(await move(13, ['f1'], 'commit-only').catch((e: unknown) => e))).toBe(true);
    expect((await rows()).map((r) => r.id)).toEqual(['a1', 'a2', 'a3', 'c1', 'e1', 's']);
    expect((await rows()).find((r) => r.id === 's')?.v).toBe(14);
  });

  it('a unit whose only write is one statement sends it alone, with no transaction around it (ADR 0074)', async () => {
    await clear();
    await sql(ds, 'INSERT INTO t (id, v) VALUES (?, ?)', ['s', 1]);
    const move = (from: number) =>
      batchedTransactionWithRetry(ds, (m) =>
        laterGuarded(ds, 'UPDATE t SET v = ? WHERE id = ?', 't', 'v = ?', [from + 1, 's', from], m),
      );
    counter.reset();
    expect(await move(1)).toBe(1);
    expect([counter.count(), counter.statements()]).toEqual([1, 1]);
    // a lost guard changed nothing and is a LostGuard, as in a transaction; nothing was begun, nothing rolls back
    counter.reset();
    expect(isLostGuard(await move(1).catch((e: unknown) => e))).toBe(true);
    expect(counter.statements()).toBe(1);
    expect(await rows()).toEqual([{ id: 's', v: 2 }]);
    // an unguarded write alone; its error fails the unit
    const insert = (v: number) =>
      batchedTransactionWithRetry(ds, (m) => later(ds, 'INSERT INTO t (id, v) VALUES (?, ?)', ['a', v], m));
    counter.reset();
    await insert(1);
    expect(counter.statements()).toBe(1);
    expect(String(await insert(9).catch((e: unknown) => e))).toMatch(/Duplicate entry/);
    // a write guarded to change two rows keeps its transaction: a change of one of them must not stay
    const both = (above: number) =>
      batchedTransactionWithRetry(ds, (m) =>
        laterGuarded(ds, 'UPDATE t SET v = v + 1 WHERE id IN (?, ?)', 't', 'v > ?', ['s', 'a', above], m, 2),
      );
    counter.reset();
    expect(await both(0)).toBe(2);
    expect(counter.statements()).toBe(4); // START, UPDATE, its check, COMMIT
    expect(isLostGuard(await both(2).catch((e: unknown) => e))).toBe(true); // only s (3) is above 2
    expect(await rows()).toEqual([
      { id: 'a', v: 2 },
      { id: 's', v: 3 },
    ]);
  });

  it("the API's pool keeps one statement per query", async () => {
    await expect(ds.query('SELECT 1; SELECT 2')).rejects.toMatchObject({
      driverError: { code: 'ER_PARSE_ERROR' },
    });
  });

  it('strict mode refuses a second connection inside a batched transaction', async () => {
    await batchedTransactionWithRetry(ds, async (m) => {
      await expect(ds.query('SELECT 1')).rejects.toMatchObject({ code: STRICT_VIOLATION });
      await expect(sql(ds, 'SELECT 1 AS one', [])).rejects.toMatchObject({ code: STRICT_VIOLATION });
      expect(await sql(ds, 'SELECT 1 AS one', [], m)).toEqual([{ one: 1 }]);
    });
  });
});
