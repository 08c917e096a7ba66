// What the pool-exhaustion suites observe from outside the service: how long an answer took, and how many
// transactions of a suite's database the MySQL/MariaDB server still has open (none may be left after a burst).
import mysql from 'mysql2/promise';
import { testMysqlServerUrl } from '../../server/src/app/test-database';

/** Milliseconds `p` took, with its value. */
export async function timed<T>(p: Promise<T>): Promise<{ ms: number; value: T }> {
  const start = Date.now();
  const value = await p;
  return { ms: Date.now() - start, value };
}

/** Transactions of database `dbName` still open on the server (MySQL/MariaDB). */
export async function openTransactions(dbName: string): Promise<number> {
  const conn = await mysql.createConnection(testMysqlServerUrl());
  try {
    const [rows] = await conn.query(
      `SELECT COUNT(*) AS n FROM information_schema.innodb_trx t
         JOIN information_schema.processlist p ON p.id = t.trx_mysql_thread_id
        WHERE p.db = ?`,
      [dbName],
    );
    return Number((rows as { n: number }[])[0]?.n);
  } finally {
    await conn.end();
  }
}
