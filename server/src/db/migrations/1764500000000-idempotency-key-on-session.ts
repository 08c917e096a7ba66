// The Idempotency-Key reservation moves onto the session row (ADR 0024): a keyed create is then the same one
// guarded INSERT as a plain create, and the unique index on (business_id, environment, idem_key) is what makes
// a second request with the key wait for the first and then replay it. The reservations still held are copied
// onto their sessions; expired ones are copied too, because a session older than 24 h releases its key on the
// next request with it (SessionService.replay), exactly as the purge did. Then the old table goes.
import { type MigrationInterface, type QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';

const COLUMN = new TableColumn({ name: 'idem_key', type: 'varchar', length: '64', isNullable: true });

const INDEX = new TableIndex({
  name: 'IDX_session_idem_key',
  columnNames: ['business_id', 'environment', 'idem_key'],
  isUnique: true,
});

// The reservation of a session: its own (each reservation named the session it created), same tenant. Keys
// are stored as their SHA-256 hex; anything else (never written by this service) is left behind.
const RESERVATION_OF_SESSION = `FROM idempotency_key k WHERE k.session_id = session.id
  AND k.business_id = session.business_id AND k.environment = session.environment AND LENGTH(k.idem_key) = 64`;

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
    // a correlated subquery UPDATE: MariaDB, MySQL and SQLite all take it (no UPDATE … JOIN in SQLite)
    await q.query(
      // sql-lint-allow: session-scope: a one-time migration of every tenant's reservations; the subquery pins each to its own session and tenant
      `UPDATE session SET idem_key = (SELECT k.idem_key ${RESERVATION_OF_SESSION}) WHERE EXISTS (SELECT 1 ${RESERVATION_OF_SESSION})`,
    );
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
