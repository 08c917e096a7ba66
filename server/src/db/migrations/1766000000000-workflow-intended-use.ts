// The intended use per workflow (issue 19, ADR 0042): the purpose a wallet shows and the registration
// certificate's intended-use identifier, as JSON on the draft and on each published revision (revisions stay
// insert-only). Nullable: workflows without one use the business's default purpose (relying_party.purpose).
import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';

const column = () => new TableColumn({ name: 'intended_use', type: 'text', isNullable: true });

export class WorkflowIntendedUse1766000000000 implements MigrationInterface {
  name = 'WorkflowIntendedUse1766000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('workflow', column());
    await q.addColumn('workflow_revision', column());
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('workflow_revision', 'intended_use');
    await q.dropColumn('workflow', 'intended_use');
  }
}
