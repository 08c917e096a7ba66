// The guarded writes of a transition (session.transition.ts owns when they run): one plain UPDATE of the
// session row, guarded by status and version, optionally with a row of another table used up in the same
// statement, and that row's guarded write alone when no move carries it.
import type { EntityManager } from 'typeorm';
import { later, laterGuarded, sql } from '../../db/fast-sql';
import { SessionEntity } from './session.entity';

/**
 * A row used up with a move (TransitionTx.useUp): `table`'s row `id`, whose `column` goes from `from` to `to`
 * (its guard: still `from`); `lost` is the refusal when it is not.
 */
export interface UsedRow {
  table: 'wallet_request';
  id: string;
  column: 'state';
  from: string;
  to: string;
  lost: () => Error;
  /**
   * One more condition of the guard, on other tables (the trust stamp a completion from a cached row decided
   * on, ADR 0067): false stops the unit exactly as a used row does.
   */
  also?: { where: string; params: unknown[] };
}

/**
 * One plain UPDATE of the session row (fast-sql.ts: no query builder on the hot path, ADR 0045), the columns
 * from the entity's metadata and values converted by the driver as TypeORM would; guarded by `status` and
 * `version` when given. Answers the rows it changed.
 */
export async function updateSession(
  m: EntityManager,
  set: Partial<Record<keyof SessionEntity, unknown>>,
  id: string,
  guard?: { status: SessionEntity['status']; version: number },
  /**
   * `answer`: sent now, its changed rows answered. `deferred`: a write whose answer decides nothing (the carried
   * columns), sent with the unit's next round trip. `guarded`: a guarded move whose loss rolls the unit back,
   * kept with its guard on MySQL (laterGuarded: a lost guard stops the batch on the server).
   */
  mode: 'answer' | 'deferred' | 'guarded' = 'answer',
  /** `guarded` only: a row of another table written in the same UPDATE, its guard joined to the session's. */
  withRow: UsedRow | null = null,
): Promise<number> {
  const ds = m.dataSource;
  const meta = ds.getMetadata(SessionEntity);
  const names: string[] = [];
  const values: unknown[] = [];
  for (const [property, value] of Object.entries(set)) {
    if (value === undefined) continue;
    const column = meta.findColumnWithPropertyName(property);
    if (!column) throw new Error(`no session column ${property}`);
    names.push(`${withRow ? 'session.' : ''}${ds.driver.escape(column.databaseName)} = ?`);
    values.push(ds.driver.preparePersistentValue(value, column));
  }
  // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard
  const update = `UPDATE session SET ${names.join(', ')} WHERE id = ?`;
  const params = [...values, id, ...(guard ? [guard.status, guard.version] : [])];
  if (guard && mode === 'guarded' && withRow) {
    // two rows, one statement (ADR 0058 amendment 3): both guards hold, or the batch stops here
    const { table, column, also } = withRow;
    // sql-lint-allow: session-scope: by primary keys (ids are globally unique): a lookup vindex on the id routes it to one shard
    const joined = `UPDATE session JOIN ${table} ON ${table}.id = ? SET ${names.join(', ')}, ${table}.${column} = ? WHERE session.id = ?`;
    const changed = await laterGuarded(
      ds,
      joined,
      'session',
      `session.status = ? AND session.version = ? AND ${table}.${column} = ?${also ? ` AND ${also.where}` : ''}`,
      [
        withRow.id,
        ...values,
        withRow.to,
        id,
        guard.status,
        guard.version,
        withRow.from,
        ...(also?.params ?? []),
      ],
      m,
      2,
    );
    return changed === 2 ? 1 : 0;
  }
  if (guard && mode === 'guarded')
    return laterGuarded(ds, update, 'session', 'status = ? AND version = ?', params, m);
  const text = guard ? `${update} AND status = ? AND version = ?` : update;
  if (mode === 'deferred') {
    await later(ds, text, params, m);
    return 1;
  }
  return (await sql<{ affectedRows: number }>(ds, text, params, m)).affectedRows;
}

/** A used-up row written alone (no kept move to carry it): guarded, `lost()` when its guard is false. */
export async function useUpAlone(m: EntityManager, row: UsedRow): Promise<void> {
  // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard
  const text = `UPDATE ${row.table} SET ${row.column} = ? WHERE id = ?`;
  const params = [row.to, row.id, row.from, ...(row.also?.params ?? [])];
  const guard = `${row.column} = ?${row.also ? ` AND ${row.also.where}` : ''}`;
  if ((await laterGuarded(m.dataSource, text, row.table, guard, params, m)) !== 1) throw row.lost();
}
