// Owns opaque keyset-pagination cursors for dashboard lists ordered by (time DESC, id DESC): a cursor is the
// base64url of `<ISO time>|<id>` of the last item of a page. Opaque to clients; a malformed one is a 400.
import { AppError } from './errors';

export interface CursorKey {
  at: Date;
  id: string;
}

export const encodeCursor = (k: CursorKey): string =>
  Buffer.from(`${k.at.toISOString()}|${k.id}`, 'utf8').toString('base64url');

export function decodeCursor(cursor: string | null | undefined, param = 'after'): CursorKey | null {
  if (cursor === null || cursor === undefined || cursor === '') return null;
  const text = /^[\w-]{1,200}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\|([\w-]{1,60})$/.exec(text);
  const at = m ? new Date(m[1] as string) : null;
  if (!m || !at || Number.isNaN(at.getTime()))
    throw new AppError('cursor_invalid', 'Pass the endCursor of a previous page.', { param });
  return { at, id: m[2] as string };
}

/** Page size: 1..100, default 20; anything else is a 400 naming `param`. */
export function pageSize(first: number | null | undefined, param = 'first'): number {
  if (first === null || first === undefined) return 20;
  if (!Number.isInteger(first) || first < 1 || first > 100)
    throw new AppError('validation_failed', 'first must be an integer from 1 to 100.', { param });
  return first;
}

export interface Page<T> {
  nodes: T[];
  endCursor: string | null;
  hasNextPage: boolean;
}

/** Cuts `rows` (fetched with limit size + 1) into a page. */
export function toPage<R, T>(rows: R[], size: number, key: (r: R) => CursorKey, map: (r: R) => T): Page<T> {
  const hasNextPage = rows.length > size;
  const kept = rows.slice(0, size);
  const last = kept[kept.length - 1];
  return { nodes: kept.map(map), endCursor: last ? encodeCursor(key(last)) : null, hasNextPage };
}
