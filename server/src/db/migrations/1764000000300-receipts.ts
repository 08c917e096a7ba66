// The signer's record (issue 8): receipt access (window, close, recorded download), emailed-receipt codes
// and deliveries. Own tables only; nothing here touches evidence tables.
import type { TableColumn } from 'typeorm';
import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

type Col = ConstructorParameters<typeof TableColumn>[0] & {};
const v = (name: string, length: number, nullable = false): Col => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable: nullable,
});
const int = (name: string): Col => ({ name, type: 'int', isNullable: false });
const ts = (name: string, nullable = false): Col => ({
  name,
  type: 'datetime',
  precision: 3,
  isNullable: nullable,
});

const TABLES: Table[] = [
  new Table({
    name: 'receipt_access',
    columns: [
      { ...v('session_id', 40), isPrimary: true },
      v('business_id', 40),
      ts('pdf_downloaded_at', true),
      ts('closed_at', true),
      ts('created_at'),
    ],
  }),
  new Table({
    name: 'receipt_code',
    columns: [
      { ...v('id', 40), isPrimary: true },
      v('session_id', 40),
      v('email', 320),
      v('code_hash', 64),
      int('attempts'),
      v('state', 16),
      ts('created_at'),
      ts('expires_at'),
    ],
    indices: [
      new TableIndex({ name: 'IDX_receipt_code_session_created', columnNames: ['session_id', 'created_at'] }),
    ],
  }),
  new Table({
    name: 'receipt_delivery',
    columns: [
      { ...v('id', 40), isPrimary: true },
      v('session_id', 40),
      v('email', 320),
      v('state', 16),
      v('link_hash', 64, true),
      ts('created_at'),
      ts('sent_at', true),
    ],
    indices: [
      new TableIndex({ name: 'IDX_receipt_delivery_link', columnNames: ['link_hash'], isUnique: true }),
      new TableIndex({ name: 'IDX_receipt_delivery_state', columnNames: ['state', 'created_at'] }),
    ],
  }),
];

export class Receipts1764000000300 implements MigrationInterface {
  name = 'Receipts1764000000300';

  async up(q: QueryRunner): Promise<void> {
    for (const t of TABLES) await q.createTable(t, false, false, true);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [...TABLES].reverse()) await q.dropTable(t.name, true);
  }
}
