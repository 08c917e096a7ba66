// The expiry sweeper on real MariaDB: a pass reads what is overdue, not what is live (EXPLAIN of both of its
// reads), expires every overdue session in bounded batches within one pass (overall and step windows), leaves
// live sessions alone, and racing sweepers plus readers queue exactly one session.expired per session.
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { sweepStatements } from '../../server/src/modules/session/session.service';
import { Api, type TestService } from '../support/harness';
import { identifyFixture } from '../support/page-fixture';

const MIN = 60_000;
const BATCH = 50;

interface PlanTable {
  table_name?: string;
  access_type?: string;
  key?: string;
  used_key_parts?: string[];
  rows?: number;
  rows_examined_per_scan?: number;
}

/** The one table access of an EXPLAIN FORMAT=JSON plan (MariaDB and MySQL 8 shapes). */
function tableOf(plan: unknown): PlanTable {
  const stack: unknown[] = [plan];
  while (stack.length) {
    const n = stack.pop();
    if (n && typeof n === 'object') {
      const o = n as Record<string, unknown>;
      if (o.table && typeof o.table === 'object' && (o.table as PlanTable).table_name === 'session')
        return o.table as PlanTable;
      stack.push(...Object.values(o));
    }
  }
  throw new Error(`no session table in ${JSON.stringify(plan)}`);
}

describe('expiry sweeper (MariaDB)', () => {
  const clock = new ManualClock(Date.now());
  const page = identifyFixture({ clock, workers: false, label: 'sweeper', claims: ['given_name'] });
  let t: TestService;
  let api: Api;
  let workflowId: string;
  const overall: string[] = [];
  const stepped: string[] = [];
  const live: string[] = [];

  const create = async (expiresIn: number) => {
    const r = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId, expires_in: expiresIn });
    expect(r.status).toBe(201);
    return r.body.id as string;
  };

  beforeAll(async () => {
    ({ t, api, workflowId } = page);
    // overdue by the overall window (60 s), by the step window (identify: 10 min after start), and live
    for (let i = 0; i < 2 * BATCH + 7; i++) overall.push(await create(60));
    for (let i = 0; i < BATCH + 3; i++) {
      const id = await create(3600);
      const started = await fetch(`${t.baseUrl}/t/sessions/${id}/start`, { method: 'POST' });
      expect(started.status).toBe(200);
      stepped.push(id);
    }
    for (let i = 0; i < 400; i++) live.push(await create(86_400));
    clock.advance(11 * MIN);
    await t.svc.ds.query('ANALYZE TABLE session');
  }, 120_000);

  it('reads overdue sessions with two index range scans, not every live session', async () => {
    const ds = t.svc.ds;
    const [byExpiry, byStep] = sweepStatements(ds, BATCH);
    const at = clock.now();
    for (const [statement, index, column] of [
      [byExpiry, 'IDX_session_status_expires', 'expires_at'],
      [byStep, 'IDX_session_status_step_expires', 'step_expires_at'],
    ] as const) {
      const [row] = (await ds.query(`EXPLAIN FORMAT=JSON ${statement}`, ['created', 'in_progress', at])) as {
        EXPLAIN: string;
      }[];
      const table = tableOf(JSON.parse(String(row?.EXPLAIN)));
      expect(table.access_type).toBe('range');
      expect(table.key).toBe(index);
      // both key parts: the range is on the deadline, not only on status (which matches every live session)
      expect(table.used_key_parts).toEqual(['status', column]);
      const estimate = Number(table.rows ?? table.rows_examined_per_scan);
      expect(estimate).toBeLessThan(live.length / 2);
    }
  });

  it('one pass expires every overdue session in batches, and leaves live ones alone', async () => {
    // two sweepers (as on two nodes) and readers race over the same overdue sessions
    const readers = [...overall.slice(0, 20), ...stepped.slice(0, 20)].map((id) =>
      api.rest('GET', `/v1/sessions/${id}`),
    );
    const [a, b, ...reads] = await Promise.all([
      t.svc.sessions.sweepOverdue(BATCH),
      t.svc.sessions.sweepOverdue(BATCH),
      ...readers,
    ]);
    for (const r of reads) {
      expect(r.status).toBe(200);
      expect(r.body.status).toBe('expired');
    }
    // the readers expired some themselves; the sweepers got all the others, between them
    expect(a + b).toBeGreaterThanOrEqual(overall.length + stepped.length - readers.length);
    expect(a + b).toBeLessThanOrEqual(overall.length + stepped.length);
    const rows = (await t.svc.ds.query(
      "SELECT status, COUNT(*) AS n FROM session WHERE status IN ('expired', 'created', 'in_progress') GROUP BY status",
    )) as { status: string; n: number | string }[];
    const count = (s: string) => Number(rows.find((r) => r.status === s)?.n ?? 0);
    expect(count('expired')).toBe(overall.length + stepped.length);
    expect(count('created')).toBe(live.length);
    expect(count('in_progress')).toBe(0);
    // exactly one session.expired queued per expired session
    const events = (await t.svc.ds.query(
      "SELECT session_id, COUNT(*) AS n FROM webhook_event WHERE event = 'session.expired' GROUP BY session_id",
    )) as { session_id: string; n: number | string }[];
    expect(events).toHaveLength(overall.length + stepped.length);
    expect(events.every((e) => Number(e.n) === 1)).toBe(true);
    // nothing left: the next pass finds nothing due
    expect(await t.svc.sessions.sweepOverdue(BATCH)).toBe(0);
  });
});
