// Owns the signer page's read model (issue 27, ADR 0056): everything a read of the hosted page needs from the
// database in one prepared statement: the session row, the page's brand (business, hosted page settings,
// relying party: pageBrandOf's join) and the refused answers of the running step. The projection
// (signer.projection.ts) is built from it without another read, except a sign workflow's documents and the
// results of a workflow whose conditions skip steps; the pinned revision comes from the workflow cache.
import type { DataSource } from 'typeorm';
import { columnList, hydrate, sql } from '../../db/fast-sql';
import { type Branding, pageBrandOfRow } from '../branding/branding.service';
import { SessionEntity } from '../session/session.entity';

/** One read of the page: the session as stored, its brand and the refused answers of its current stage. */
export interface PageRead {
  session: SessionEntity;
  brand: Branding & { name: string };
  refused: number;
}

const texts = new WeakMap<DataSource, string>();

function statementOf(ds: DataSource): string {
  let text = texts.get(ds);
  if (text === undefined) {
    text =
      `SELECT ${columnList(ds, SessionEntity, 's')}, b.name AS pg_name, h.display_name AS pg_display_name, ` +
      'h.accent_color AS pg_accent_color, h.logo_sha256 AS pg_logo_sha256, r.display_name AS pg_rp_display_name, ' +
      "(SELECT COUNT(*) FROM wallet_request w WHERE w.session_id = s.id AND w.stage = s.current_stage AND w.state = 'refused') AS pg_refused " +
      'FROM session s LEFT JOIN business b ON b.id = s.business_id ' +
      'LEFT JOIN hosted_page_settings h ON h.business_id = s.business_id AND h.environment = s.environment ' +
      'LEFT JOIN relying_party r ON r.business_id = s.business_id AND r.environment = s.environment ' +
      'WHERE s.id = ?';
    texts.set(ds, text);
  }
  return text;
}

/** The page's read of session `id` (the hosted page's capability id), or undefined for no such session. */
export async function readPage(ds: DataSource, id: string): Promise<PageRead | undefined> {
  if (typeof id !== 'string' || !id.startsWith('sess_')) return undefined;
  // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard (the capability id of the hosted page)
  const rows = await sql<Record<string, unknown>[]>(ds, statementOf(ds), [id]);
  const row = rows[0];
  if (!row) return undefined;
  return {
    session: hydrate(ds, SessionEntity, row),
    brand: pageBrandOfRow({
      name: row.pg_name,
      display_name: row.pg_display_name,
      accent_color: row.pg_accent_color,
      logo_sha256: row.pg_logo_sha256,
      rp_display_name: row.pg_rp_display_name,
    }),
    refused: Number(row.pg_refused ?? 0),
  };
}
