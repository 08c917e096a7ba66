// Column shapes shared by entities, so every entity describes the same schema on MySQL and SQLite
// (the initial migration spells out the same shapes with TypeORM's Table API).
type Null<N> = N extends true ? true : false;
const nul = <N extends boolean | undefined>(n: N) => (n ?? false) as Null<N>;

export const idCol = (length = 40) => ({ type: 'varchar' as const, length, nullable: false as const });
export const str = <N extends boolean | undefined = undefined>(length: number, nullable?: N) => ({
  type: 'varchar' as const,
  length,
  nullable: nul(nullable as N),
});
export const text = <N extends boolean | undefined = undefined>(nullable?: N) => ({
  type: 'text' as const,
  nullable: nul(nullable as N),
});
export const int = <N extends boolean | undefined = undefined>(nullable?: N) => ({
  type: 'int' as const,
  nullable: nul(nullable as N),
});
export const bool = () => ({ type: 'boolean' as const, width: 1, nullable: false as const });
export const time = <N extends boolean | undefined = undefined>(nullable?: N) => ({
  type: 'datetime' as const,
  precision: 3,
  nullable: nul(nullable as N),
});
