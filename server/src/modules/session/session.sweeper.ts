// Owns the background passes over sessions nobody reads: expiring overdue ones (so the business still hears
// session.expired) and the gate reminder (session.decision_due, once per gate: ADR 0008). Both change sessions
// through the transition API (session.transition.ts), so racing sweepers on several nodes, and readers, queue
// each event exactly once.
import type { DataSource } from 'typeorm';
import type { Clock } from '../../common/clock';
import { isMysql } from '../../db/data-source';
import { columnList, hydrate, paramFor, sql } from '../../db/fast-sql';
import { SessionEntity } from './session.entity';
import { decisionDue } from './session.events';
import { EXPIRING_STATUSES } from './session.machine';
import type { SessionTransitions } from './session.transition';

/** The statuses that can expire: the machine's (session.machine.ts EXPIRING_STATUSES, as isOverdue). */
const SWEPT_STATUSES = EXPIRING_STATUSES;

/**
 * The sweeper's two reads. Each is one range scan on its own index, (status, expires_at) and (status,
 * step_expires_at): `status IN (…) AND <deadline> <= ?` reads only the overdue entries. No ORDER BY (a filesort
 * of rows with TEXT columns goes through a temporary table); the index order is the natural order anyway.
 * session.sweeper.test.ts checks the plans with EXPLAIN.
 */
export function sweepStatements(ds: DataSource, batch: number): [string, string] {
  if (!Number.isInteger(batch) || batch < 1) throw new Error('batch must be a positive integer');
  const cols = columnList(ds, SessionEntity);
  const statuses = SWEPT_STATUSES.map(() => '?').join(', ');
  const q = (col: string, index: string) =>
    // sql-lint-allow: session-scope: the expiry sweeper scans overdue sessions of every tenant by design (a scatter query on Vitess)
    `SELECT ${cols} FROM session${isMysql(ds) ? ` FORCE INDEX (${index})` : ''} WHERE status IN (${statuses}) AND ${col} <= ? LIMIT ${batch}`;
  return [
    q('expires_at', 'IDX_session_status_expires'),
    q('step_expires_at', 'IDX_session_status_step_expires'),
  ];
}

export class SessionSweeper {
  /** sweepStatements by batch size, built once per instance. */
  private readonly statements = new Map<number, [string, string]>();

  constructor(
    private readonly deps: {
      ds: DataSource;
      clock: Clock;
      decisionDueHours: number;
      transitions: SessionTransitions;
    },
  ) {}

  /**
   * Expires overdue sessions nobody reads. A pass costs what is overdue, not what is live: two index range
   * scans, in batches of `batch` until none is due (at most `maxBatches` per pass, so one pass never runs
   * unbounded). Each session expires through the transition API's guarded write: racing sweepers and readers,
   * on any node, queue exactly one session.expired.
   */
  async sweepOverdue(batch = 100, maxBatches = 100): Promise<number> {
    const { ds, clock, transitions } = this.deps;
    let texts = this.statements.get(batch);
    if (!texts) {
      texts = sweepStatements(ds, batch);
      this.statements.set(batch, texts);
    }
    const [byExpiry, byStep] = texts;
    let expired = 0;
    for (let i = 0; i < maxBatches; i++) {
      const params = [...SWEPT_STATUSES, paramFor(ds, SessionEntity, 'expiresAt', clock.now())];
      const [a, b] = await Promise.all([sql(ds, byExpiry, params), sql(ds, byStep, params)]);
      const due = new Map<string, SessionEntity>();
      for (const row of [...a, ...b]) {
        const s = hydrate(ds, SessionEntity, row);
        due.set(s.id, s);
      }
      let n = 0;
      // counted only when this pass's guarded write won (onWon runs for the winner alone)
      for (const s of due.values()) await transitions.current(s, () => n++);
      expired += n;
      // Done when both scans came back short; also stop if nothing could be expired (another node won them
      // all, or the rows changed): the next pass picks up whatever is still due.
      if ((a.length < batch && b.length < batch) || n === 0) break;
    }
    return expired;
  }

  /**
   * Queues session.decision_due once per gate for sessions whose decision is overdue (ADR 0008). The guarded
   * write on decision_reminded_at decides who queues it, so racing sweepers (several nodes) queue it once. It
   * is not a move of the state machine (the status and version stay): a reminder never makes a concurrent
   * continue or stop lose its race.
   */
  async sweepDecisionsDue(limit = 100): Promise<number> {
    const { ds, clock, transitions } = this.deps;
    const now = clock.now();
    const repo = ds.getRepository(SessionEntity);
    // sessions that reached their gate before deadlines existed get one, counted from when they arrived there
    const undated = await repo
      .createQueryBuilder('s')
      .where('s.status = :st AND s.decision_due_at IS NULL', { st: 'awaiting_decision' })
      .limit(limit)
      .getMany();
    for (const s of undated)
      await repo
        .createQueryBuilder()
        .update(SessionEntity)
        .set({ decisionDueAt: new Date(s.updatedAt.getTime() + this.deps.decisionDueHours * 3600_000) })
        .where('id = :id AND status = :st AND decision_due_at IS NULL', { id: s.id, st: 'awaiting_decision' })
        .execute();
    const due = await repo
      .createQueryBuilder('s')
      .where('s.status = :st AND s.decision_reminded_at IS NULL AND s.decision_due_at <= :now', {
        st: 'awaiting_decision',
        now,
      })
      .limit(limit)
      .getMany();
    let n = 0;
    for (const s of due) {
      const queued = await transitions.run(s, async (tx) => {
        const won = await tx.m
          .createQueryBuilder()
          .update(SessionEntity)
          .set({ decisionRemindedAt: now })
          .where(
            'id = :id AND status = :st AND version = :v AND decision_reminded_at IS NULL AND decision_due_at <= :now',
            { id: s.id, st: 'awaiting_decision', v: s.version, now },
          )
          .execute();
        if (won.affected !== 1) return false;
        await tx.emit(decisionDue(s, s.decisionDueAt as Date, now));
        return true;
      });
      if (queued) n++;
    }
    return n;
  }
}
