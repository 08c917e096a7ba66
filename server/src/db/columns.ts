// Column shapes shared by entities and the migration, so both describe the same schema on MySQL and SQLite.
import type { ColumnOptions } from 'typeorm';

export const idCol = (length = 40): ColumnOptions => ({ type: 'varchar', length });
export const str = (length: number, nullable = false): ColumnOptions => ({ type: 'varchar', length, nullable });
export const text = (nullable = false): ColumnOptions => ({ type: 'text', nullable });
export const int = (nullable = false): ColumnOptions => ({ type: 'int', nullable });
export const bool = (): ColumnOptions => ({ type: 'boolean', width: 1 });
export const time = (nullable = false): ColumnOptions => ({ type: 'datetime', precision: 3, nullable });
