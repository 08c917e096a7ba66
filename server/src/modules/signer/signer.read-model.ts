// Owns the hosted page's reads of a session. The signer page's read model (issue 27, ADR 0056): everything a
// read of the hosted page needs from the database in one prepared statement: the session row, the page's brand
// (business, hosted page settings, relying party: pageBrandOf's join), the refused answers of the running step
// and the trust stamp. The projection (signer.projection.ts) is built from it without another read, except a
// sign workflow's documents and the results of a workflow whose conditions skip steps; the pinned revision
// comes from the workflow cache. And the transport's own reads: the session row (readSession) and a wallet
// response's session with its open request (readSubmission).
import type { DataSource } from 'typeorm';
import { batchedStatements } from '../../db/batched-transaction';
import { isMysql } from '../../db/data-source';
import { columnList, hydrate, paramFor, sql } from '../../db/fast-sql';
import { type Branding, pageBrandOfRow } from '../branding/branding.service';
import { SessionEntity } from '../session/session.entity';
import type { KeptRead } from '../session/session.transition';
import { SessionEventEntity } from '../timeline/session-event.entity';
import { nextOrderKey, onceEventId } from '../timeline/session-events';
import { TRUST_STAMP_COLUMNS, trustStampOf } from '../verification/trust-version';
import { WalletRequestEntity } from '../verification/wallet-request.entity';
import type { CachedSession } from './session-row-cache';

/**
 * One read of the page: the session as stored, its brand, the refused answers of its current stage, and the
 * trust stamp read with them (ADR 0063: two scalar subqueries; the next wallet request begins from it, ADR 0067
 * amendment).
 */
export interface PageRead {
  session: SessionEntity;
  brand: Branding & { name: string };
  refused: number;
  stamp: string | undefined;
}

const texts = new WeakMap<DataSource, string>();

function statementOf(ds: DataSource): string {
  let text = texts.get(ds);
  if (text === undefined) {
    text =
      `SELECT ${columnList(ds, SessionEntity, 's')}, b.name AS pg_name, h.display_name AS pg_display_name, ` +
      'h.accent_color AS pg_accent_color, h.logo_sha256 AS pg_logo_sha256, r.display_name AS pg_rp_display_name, ' +
      "(SELECT COUNT(*) FROM wallet_request w WHERE w.session_id = s.id AND w.stage = s.current_stage AND w.state = 'refused') AS pg_refused, " +
      `${TRUST_STAMP_COLUMNS} ` +
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
  return pageOf(ds, await sql<Record<string, unknown>[]>(ds, statementOf(ds), [id]));
}

const openTexts = new WeakMap<DataSource, string>();

/**
 * The support timeline's `opened`, once per session, written from the session row itself (no row: nothing),
 * so it needs no read before it: INSERT IGNORE … SELECT with the id recordSessionEventOnce derives.
 */
function openStatementOf(ds: DataSource): string {
  let text = openTexts.get(ds);
  if (text === undefined) {
    text =
      `INSERT ${isMysql(ds) ? 'IGNORE ' : 'OR IGNORE '}INTO session_event ` +
      '(id, session_id, business_id, environment, at, order_key, kind, stage, code, detail) ' +
      "SELECT ?, s.id, s.business_id, s.environment, ?, ?, 'opened', NULL, NULL, NULL FROM session s WHERE s.id = ?";
    openTexts.set(ds, text);
  }
  return text;
}

/**
 * Opening the link (POST /t/sessions/{id}/open, issue 27, ADR 0062): records the timeline's `opened` once and
 * reads the page (readPage) in one round trip on MySQL, both statements sent together on the transition pool
 * (batched-transaction.ts); two statements on the embedded engine. The read sees the session as the open left
 * it, so the open can answer the page's first read.
 */
export async function openPage(ds: DataSource, id: string, at: Date): Promise<PageRead | undefined> {
  if (typeof id !== 'string' || !id.startsWith('sess_')) return undefined;
  const insert = [onceEventId(id, 'opened'), paramFor(ds, SessionEventEntity, 'at', at), nextOrderKey(), id];
  // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard (the capability id of the hosted page)
  const read = statementOf(ds);
  const both = await batchedStatements(ds, [
    [openStatementOf(ds), insert],
    [read, [id]],
  ]);
  if (both) return pageOf(ds, both[1] as Record<string, unknown>[]);
  await sql(ds, openStatementOf(ds), insert);
  // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard (the capability id of the hosted page)
  return pageOf(ds, await sql<Record<string, unknown>[]>(ds, read, [id]));
}

/**
 * The page's read after a transition of session `id` (Start, a wallet response: issue 27, "no re-read of what
 * the transition just wrote"). When the transition began from this node's rows (`hit`) with the brand kept
 * from the open's read, and left the session at a step with no requests yet (Start; a completed step), the page
 * is built from them: the row the transition wrote, that brand, the stamp kept with the row, no refused answers
 * (ADR 0072). Otherwise `kept` is the read model's statement for the unit to send with its COMMIT
 * (UnitOptions.readWithCommit), inside the transaction after its writes (ADR 0062 amendment); `page()` answers
 * from its rows when the unit committed with them, and otherwise (the embedded engine, a lost race answered from
 * the persisted state, no transition at all) reads the page now, as the GraphQL read would.
 */
export function pageAfterTransition(
  ds: DataSource,
  id: string,
  hit?: CachedSession,
): { kept?: KeptRead; page(written: SessionEntity, atNewStep: boolean): Promise<PageRead | undefined> } {
  const brand = hit?.brand;
  let rows: Record<string, unknown>[] | undefined;
  return {
    ...(brand
      ? {}
      : {
          kept: {
            text: statementOf(ds),
            params: [id],
            collect: (r: Record<string, unknown>[]) => {
              rows = r;
            },
          },
        }),
    page: (written, atNewStep) => {
      if (brand && atNewStep)
        return Promise.resolve({ session: written, brand, refused: 0, stamp: hit?.stamp });
      return rows ? Promise.resolve(pageOf(ds, rows)) : readPage(ds, id);
    },
  };
}

function pageOf(ds: DataSource, rows: Record<string, unknown>[]): PageRead | undefined {
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
    stamp: trustStampOf(row),
  };
}

const sessionTexts = new WeakMap<DataSource, { plain: string; stamped: string; submission: string }>();

function sessionTextsOf(ds: DataSource): { plain: string; stamped: string; submission: string } {
  let texts = sessionTexts.get(ds);
  if (texts === undefined) {
    texts = {
      // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard (the capability id of the hosted page)
      plain: `SELECT ${columnList(ds, SessionEntity)} FROM session WHERE id = ?`,
      // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard (the capability id of the hosted page)
      stamped: `SELECT ${columnList(ds, SessionEntity)}, ${TRUST_STAMP_COLUMNS} FROM session WHERE id = ?`,
      submission:
        `SELECT ${columnList(ds, SessionEntity, 's', 's_')}, ${columnList(ds, WalletRequestEntity, 'wr', 'wr_')}, ${TRUST_STAMP_COLUMNS}` +
        // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard
        " FROM session s LEFT JOIN wallet_request wr ON wr.id = ? AND wr.session_id = s.id AND wr.stage = s.current_stage AND wr.state = 'open' WHERE s.id = ?",
    };
    sessionTexts.set(ds, texts);
  }
  return texts;
}

/**
 * The session row of a hosted-page request as stored (one prepared statement, fast-sql.ts), with the trust stamp
 * as two scalar subqueries when the request reads trust (`stamped`: the wallet request and response), so its
 * trust reads may be answered from cache (ADR 0063); the others read no trust (ADR 0065). Undefined: no such
 * session.
 */
export async function readSession(
  ds: DataSource,
  id: string,
  stamped: boolean,
): Promise<{ s: SessionEntity; stamp: string | undefined } | undefined> {
  if (typeof id !== 'string' || !id.startsWith('sess_')) return undefined;
  const texts = sessionTextsOf(ds);
  const [row] = await sql<Record<string, unknown>[]>(ds, stamped ? texts.stamped : texts.plain, [id]);
  return row ? { s: hydrate(ds, SessionEntity, row), stamp: trustStampOf(row) } : undefined;
}

/**
 * A wallet response's read (ADR 0045 amendment): the session and its open request `requestId` of the current
 * step (null: none such), with the trust stamp, in one plain statement. Undefined: no such session.
 */
export async function readSubmission(
  ds: DataSource,
  id: string,
  requestId: unknown,
): Promise<{ s: SessionEntity; req: WalletRequestEntity | null; stamp: string | undefined } | undefined> {
  if (typeof id !== 'string' || !id.startsWith('sess_')) return undefined;
  const [row] = await sql<Record<string, unknown>[]>(ds, sessionTextsOf(ds).submission, [
    String(requestId),
    id,
  ]);
  if (!row) return undefined;
  const req = row.wr_id == null ? null : hydrate(ds, WalletRequestEntity, row, 'wr_');
  return { s: hydrate(ds, SessionEntity, row, 's_'), req, stamp: trustStampOf(row) };
}
