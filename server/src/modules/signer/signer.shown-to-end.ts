// The documents of a sign step the hosted page showed to the end, as the timeline recorded them
// (`document_shown_to_end`, ADR 0029): the wallet request asks to sign only those, the completion records them.
import type { DataSource } from 'typeorm';
import { SessionEventEntity } from '../timeline/session-event.entity';

/** The documents of `stage` the page showed to the end, from the timeline (first record of each). */
export async function shownToEnd(
  ds: DataSource,
  sessionId: string,
  stage: number,
): Promise<{ position: number; sha256: string; at: string }[]> {
  // sql-lint-allow: session-scope: by session_id, unique across tenants: routed by a session_id lookup vindex
  const rows = await ds.getRepository(SessionEventEntity).find({
    where: { sessionId, kind: 'document_shown_to_end', stage },
    order: { at: 'ASC', orderKey: 'ASC' },
  });
  const out: { position: number; sha256: string; at: string }[] = [];
  for (const r of rows) {
    const d = JSON.parse(r.detail ?? '{}') as { position?: unknown; sha256?: unknown };
    if (typeof d.position !== 'number' || typeof d.sha256 !== 'string') continue;
    if (out.some((x) => x.position === d.position)) continue;
    out.push({ position: d.position, sha256: d.sha256, at: r.at.toISOString() });
  }
  return out.sort((a, b) => a.position - b.position);
}
