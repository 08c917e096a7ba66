// Sign-step documents (content-addressed blobs, one row per uploaded document) and encrypted step evidence
// (envelope-encrypted wallet presentations). Both are insert-only evidence tables.
import type { TableColumn } from 'typeorm';
import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

type TableColumnOptions = ConstructorParameters<typeof TableColumn>[0] & {};

const v = (name: string, length: number, nullable = false): TableColumnOptions => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable: nullable,
});
const txt = (name: string): TableColumnOptions => ({ name, type: 'text', isNullable: false });
const int = (name: string): TableColumnOptions => ({ name, type: 'int', isNullable: false });
const ts = (name: string): TableColumnOptions => ({
  name,
  type: 'datetime',
  precision: 3,
  isNullable: false,
});

const TABLES: Table[] = [
  new Table({
    name: 'document',
    columns: [
      { ...v('id', 40), isPrimary: true },
      v('session_id', 40),
      v('business_id', 40),
      int('stage'),
      int('position'),
      v('label', 255),
      v('sha256', 64),
      int('size'),
      v('content_type', 100),
      ts('created_at'),
    ],
    indices: [
      new TableIndex({
        name: 'IDX_document_session_position',
        columnNames: ['session_id', 'position'],
        isUnique: true,
      }),
    ],
  }),
  new Table({
    name: 'step_evidence',
    columns: [
      { ...v('session_id', 40), isPrimary: true },
      { ...int('stage'), isPrimary: true },
      v('business_id', 40),
      v('kind', 32),
      v('alg', 16),
      v('kid', 300),
      txt('wrapped_key'),
      v('iv', 32),
      txt('ciphertext'),
      v('tag', 32),
      v('plaintext_sha256', 64),
      ts('created_at'),
    ],
  }),
];

export class DocumentsAndEvidence1763900000007 implements MigrationInterface {
  name = 'DocumentsAndEvidence1763900000007';

  async up(q: QueryRunner): Promise<void> {
    for (const t of TABLES) await q.createTable(t, false, false, true);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [...TABLES].reverse()) await q.dropTable(t.name, true);
  }
}
