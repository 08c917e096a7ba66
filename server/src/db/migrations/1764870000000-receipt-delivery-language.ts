// The signer's page language (en/de/fr) and IANA time zone on an emailed receipt (issue 17): stored when the
// code is confirmed, so the email, its attached PDF and a retry by the worker (deliverPending) are all written
// in the language and zone of the page that asked. Nullable: older rows and callers without them get en, UTC.
import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';

export class ReceiptDeliveryLanguage1764870000000 implements MigrationInterface {
  name = 'ReceiptDeliveryLanguage1764870000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumns('receipt_delivery', [
      new TableColumn({ name: 'lang', type: 'varchar', length: '8', isNullable: true }),
      new TableColumn({ name: 'time_zone', type: 'varchar', length: '64', isNullable: true }),
    ]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('receipt_delivery', 'time_zone');
    await q.dropColumn('receipt_delivery', 'lang');
  }
}
