// The Idempotency-Key reservation moves onto the session row (ADR 0024): a keyed create is then the same one
// guarded INSERT as a plain create, and the unique index on (business_id, environment, idem_key) is what makes
// a second request with the key wait for the first and then replay it. The reservations still within their
// 24 h are copied onto their sessions; expired ones are not (a repeat would have created anew anyway, as after
// the purge). Then the old table goes.
import { type MigrationInterface, type QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';

const COLUMN = new TableColumn({ name: 'idem_key', type: 'varchar', length: '64', isNullable: true });

const INDEX = new TableIndex({
  name: 'IDX_session_idem_key',
  columnNames: ['business_id', 'environment', 'idem_key'],
  isUnique: true,
});

// A reservation still within its 24 h, as a SHA-256 hex (anything else was never written by this service).
const LIVE = (now: string) =>
  `k.session_id IS NOT NULL AND k.expires_at > ${now} AND LENGTH(k.idem_key) = 64`;

/**
 * Copies each live reservation onto its own session (each reservation named the session it created; same
 * tenant). Driven from the reservations, which the expiry index bounds to the last 24 h, so a large session
 * table is neither scanned nor locked whole: each session is looked up by primary key. MySQL/MariaDB spell
 * that as a multi-table UPDATE, SQLite (3.33+; libsql ships 3.45) as UPDATE … FROM. Datetimes are UTC on both.
 */
async function copyLiveReservations(q: QueryRunner): Promise<void> {
  const type = q.dataSource.options.type;
  const sameTenant = 'k.business_id = s.business_id AND k.environment = s.environment';
  // sql-lint-allow: session-scope: a one-time migration of every tenant's live reservations, each onto its own session and tenant
  const mysql = `UPDATE idempotency_key k JOIN session s ON s.id = k.session_id AND ${sameTenant}
SET s.idem_key = k.idem_key WHERE ${LIVE('UTC_TIMESTAMP(3)')}`;
  // sql-lint-allow: session-scope: a one-time migration of every tenant's live reservations, each onto its own session and tenant
  const sqlite = `UPDATE session AS s SET idem_key = k.idem_key FROM idempotency_key k
WHERE s.id = k.session_id AND ${sameTenant} AND ${LIVE("strftime('%Y-%m-%d %H:%M:%f', 'now')")}`;
  await q.query(type === 'mysql' || type === 'mariadb' ? mysql : sqlite);
}

/** The old table, as the initial and boundaries migrations left it (for down()). */
const OLD_TABLE = new Table({
  name: 'idempotency_key',
  columns: [
    { name: 'business_id', type: 'varchar', length: '40', isPrimary: true, isNullable: false },
    { name: 'environment', type: 'varchar', length: '16', isPrimary: true, isNullable: false },
    { name: 'idem_key', type: 'varchar', length: '255', isPrimary: true, isNullable: false },
    { name: 'session_id', type: 'varchar', length: '40', isNullable: true },
    { name: 'status_code', type: 'int', isNullable: true },
    { name: 'created_at', type: 'datetime', precision: 3, isNullable: false },
    { name: 'expires_at', type: 'datetime', precision: 3, isNullable: false },
  ],
  indices: [new TableIndex({ name: 'IDX_idempotency_key_expires', columnNames: ['expires_at'] })],
});

export class IdempotencyKeyOnSession1764500000000 implements MigrationInterface {
  name = 'IdempotencyKeyOnSession1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('session', COLUMN);
    await copyLiveReservations(q);
    await q.createIndex('session', INDEX);
    await q.dropTable('idempotency_key');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.createTable(OLD_TABLE);
    // the reservations back, 24 h from their session's creation as before (date arithmetic differs per engine)
    const type = q.dataSource.options.type;
    const plus24h =
      type === 'mysql' || type === 'mariadb'
        ? 'DATE_ADD(created_at, INTERVAL 24 HOUR)'
        : "strftime('%Y-%m-%d %H:%M:%f', created_at, '+24 hours')";
    await q.query(
      // sql-lint-allow: session-scope: a one-time migration back of every tenant's reservations
      `INSERT INTO idempotency_key (business_id, environment, idem_key, session_id, status_code, created_at, expires_at)
SELECT business_id, environment, idem_key, id, 201, created_at, ${plus24h} FROM session WHERE idem_key IS NOT NULL`,
    );
    await q.dropIndex('session', INDEX.name as string);
    await q.dropColumn('session', COLUMN.name);
  }
}
