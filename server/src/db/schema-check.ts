// Compares the schema the migrations produced with what the entities describe.
// Returns the SQL TypeORM would need to make them equal: empty means they agree.
import type { DataSource } from 'typeorm';

export async function pendingSchemaDiff(ds: DataSource): Promise<string[]> {
  const log = await ds.driver.createSchemaBuilder().log();
  return log.upQueries.map((q) => q.query);
}
