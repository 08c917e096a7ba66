// The bounds ADR 0067 and the README promise for a node's own rows of a session: at most `max` sessions (the
// oldest kept goes first), each for `ttlMs`, copied in and out, and a wallet request kept only while its
// session's version is the one it was kept with; a stamp set only on the version it was read beside; the brand of
// the open's read kept through every later row of the session until the entry goes (ADR 0072).
import { describe, expect, it } from 'vitest';
import { SessionEntity } from '../session/session.entity';
import { WalletRequestEntity } from '../verification/wallet-request.entity';
import { SessionRowCache } from './session-row-cache';

const session = (id: string, version = 0) =>
  Object.assign(new SessionEntity(), { id, version, status: 'created' as SessionEntity['status'] });
const request = (id: string) =>
  Object.assign(new WalletRequestEntity(), { id, state: 'open' as WalletRequestEntity['state'] });

describe('a node keeps its own rows of a session', () => {
  it('drops the oldest kept session past its bound, and any session past its time', () => {
    const rows = new SessionRowCache(2, 1_000);
    rows.keep(session('sess_a'), undefined, 0);
    rows.keep(session('sess_b'), undefined, 0);
    rows.keep(session('sess_a', 1), undefined, 10); // kept again: now the newest
    rows.keep(session('sess_c'), undefined, 20);
    expect(rows.get('sess_b', 30)).toBeUndefined();
    expect(rows.get('sess_a', 30)?.session.version).toBe(1);
    expect(rows.get('sess_c', 1_019)?.session.id).toBe('sess_c');
    expect(rows.get('sess_c', 1_020)).toBeUndefined();
  });

  it('hands out copies: an attempt that changes its entity does not change what is kept', () => {
    const rows = new SessionRowCache();
    const kept = session('sess_a');
    rows.keep(kept, '1.1', 0, request('wreq_1'));
    kept.status = 'in_progress';
    const first = rows.get('sess_a', 1, 'wreq_1');
    if (!first?.request) throw new Error('kept with its request');
    first.session.status = 'completed';
    first.request.state = 'consumed';
    const again = rows.get('sess_a', 2, 'wreq_1');
    expect([again?.session.status, again?.request?.state, again?.stamp]).toEqual(['created', 'open', '1.1']);
  });

  it('answers a request only by its own id, and forgets it once a newer version of the session is kept', () => {
    const rows = new SessionRowCache();
    rows.keep(session('sess_a', 1), '1.1', 0, request('wreq_1'));
    expect(rows.get('sess_a', 1, 'wreq_2')).toBeUndefined();
    expect(rows.get('sess_a', 1, { id: 'wreq_1' })).toBeUndefined();
    rows.keep(session('sess_a', 1), '1.1', 2); // the same version: the request stays
    expect(rows.get('sess_a', 3, 'wreq_1')?.request?.id).toBe('wreq_1');
    rows.keep(session('sess_a', 2), undefined, 4); // the step completed: the request is gone
    expect(rows.get('sess_a', 5, 'wreq_1')).toBeUndefined();
    expect(rows.get('sess_a', 5)?.request).toBeUndefined();
    rows.drop('sess_a');
    expect(rows.get('sess_a', 6)).toBeUndefined();
  });

  it('takes a stamp only for the version it was read beside, and keeps the request with it', () => {
    const rows = new SessionRowCache();
    rows.keep(session('sess_a', 1), undefined, 0, request('wreq_1'));
    rows.stampAt('sess_a', 2, '1.1'); // a read of a newer row: not this row's stamp
    expect(rows.get('sess_a', 1)?.stamp).toBeUndefined();
    rows.stampAt('sess_a', 1, undefined);
    expect(rows.get('sess_a', 1)?.stamp).toBeUndefined();
    rows.stampAt('sess_a', 1, '1.1');
    expect(rows.get('sess_a', 1, 'wreq_1')?.stamp).toBe('1.1');
    rows.stampAt('sess_b', 1, '1.1'); // nothing kept: nothing made up
    expect(rows.get('sess_b', 1)).toBeUndefined();
  });

  it('keeps the brand of the open through the rows kept after it, until the entry is dropped', () => {
    const rows = new SessionRowCache();
    const brand = { name: 'Acme', displayName: 'Acme Bank', accentColor: null, logoUrl: null };
    rows.keep(session('sess_a'), '1.1', 0, undefined, brand);
    rows.keep(session('sess_a', 1), undefined, 1); // Start's row
    rows.keep(session('sess_a', 1), '1.1', 2, request('wreq_1')); // its wallet request
    rows.keep(session('sess_a', 2), undefined, 3); // a completed step
    expect(rows.get('sess_a', 4)?.brand).toEqual(brand);
    rows.drop('sess_a');
    rows.keep(session('sess_a', 2), '1.1', 5); // read afresh: no brand until an open reads one
    expect(rows.get('sess_a', 6)?.brand).toBeUndefined();
  });
});
