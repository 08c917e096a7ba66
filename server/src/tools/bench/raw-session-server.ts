// The raw baseline of `pnpm bench sessions` (ADR 0045, amendment 3): a bare node:http + mysql2 server doing the
// round trips of one complete session with the same crypto, and nothing else (no framework, no ORM, no
// validation beyond the checks named here). Not part of the product. Forked by bench-sessions.ts (its CPU is read
// from /proc/<pid>/stat), driven over HTTP by tools/bench/session-driver.ts. Per session:
//   POST /s               INSERT session
//   POST /s/:id/open      guarded UPDATE (created -> opened), then SELECT: it answers the page's first read, as
//                         the service's open does when the page's read travels in its body (ADR 0062)
//   GET  /s/:id           SELECT (a read of its own; the bench's driver no longer sends it, see below)
//   POST /s/:id/start     guarded UPDATE (opened -> started), then SELECT: it answers the page's read after
//                         Start, as the service's Start does when the read travels with it (ADR 0062 amendment)
//   POST /s/:id/request   guarded UPDATE storing the nonce (started -> requested)
//   POST /s/:id/response  SELECT; two ES256 verifies (issuer signature, key binding over the nonce); one
//                         transaction: guarded UPDATE (requested -> completed), INSERT the result and the audit
//                         record with its ES256 signature, INSERT both webhook events, SELECT the session (the
//                         page's read after the answer, as the service reads it before its COMMIT); then, after
//                         answering, two HMAC-signed POSTs (step.completed, session.completed) and one UPDATE
//                         marking them sent.
// Environment: RAW_DB_URL, RAW_ISSUER_KEY and RAW_HOLDER_KEY (public keys, SPKI PEM), RAW_HOOK_URL, RAW_HOOK_SECRET.
// IPC: {cmd:'statements'} answers {statements} since the last such question.
import { createHmac, createPublicKey, generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import mysql from 'mysql2/promise';

const env = (k: string): string => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
};
const issuerKey = createPublicKey(env('RAW_ISSUER_KEY'));
const holderKey = createPublicKey(env('RAW_HOLDER_KEY'));
const hookUrl = env('RAW_HOOK_URL');
const hookSecret = env('RAW_HOOK_SECRET');
const audit = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
const pool = mysql.createPool({ uri: env('RAW_DB_URL'), connectionLimit: 20, timezone: 'Z' });
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
let statements = 0;
const q = async (sql: string, args: unknown[] = []) => {
  statements++;
  const [r] = await pool.execute(sql, args as never);
  return r as mysql.ResultSetHeader & mysql.RowDataPacket[];
};

const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS raw_session (id CHAR(32) PRIMARY KEY, status VARCHAR(16) NOT NULL, version INT NOT NULL, nonce CHAR(32) NULL, created_at DATETIME(3) NOT NULL, updated_at DATETIME(3) NOT NULL)',
  'CREATE TABLE IF NOT EXISTS raw_result (session_id CHAR(32) PRIMARY KEY, claims TEXT NOT NULL, created_at DATETIME(3) NOT NULL)',
  'CREATE TABLE IF NOT EXISTS raw_audit (id BIGINT AUTO_INCREMENT PRIMARY KEY, session_id CHAR(32) NOT NULL, digest CHAR(64) NOT NULL, signature VARCHAR(200) NOT NULL, created_at DATETIME(3) NOT NULL)',
  'CREATE TABLE IF NOT EXISTS raw_event (id BIGINT AUTO_INCREMENT PRIMARY KEY, session_id CHAR(32) NOT NULL, type VARCHAR(32) NOT NULL, body TEXT NOT NULL, sent TINYINT NOT NULL DEFAULT 0, KEY (session_id))',
];

/** A guarded transition: one UPDATE, 409 when the session was not in `from`. */
const move = async (id: string, from: string, to: string, nonce?: string) => {
  const r = await q(
    `UPDATE raw_session SET status = ?, version = version + 1, updated_at = ?${nonce ? ', nonce = ?' : ''} WHERE id = ? AND status = ?`,
    nonce ? [to, new Date(), nonce, id, from] : [to, new Date(), id, from],
  );
  return r.affectedRows === 1;
};

const post = (body: string) =>
  new Promise<void>((resolve, reject) => {
    const ts = Math.floor(Date.now() / 1000);
    const mac = createHmac('sha256', hookSecret).update(`${ts}.${body}`).digest('hex');
    const req = http.request(
      hookUrl,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'x-service-timestamp': String(ts),
          'x-service-signature': `v1=${mac}`,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });

interface Presentation {
  credential: string; // base64url JSON of the claims
  issuer_sig: string; // base64url ES256 (P1363) over credential
  kb_sig: string; // base64url ES256 over `${credential}.${nonce}`
}

async function respond(id: string, p: Presentation): Promise<[number, unknown]> {
  let [row] = await q('SELECT status, nonce FROM raw_session WHERE id = ?', [id]);
  if (row?.status !== 'requested') return [409, { error: 'not_requested' }];
  const es256 = { dsaEncoding: 'ieee-p1363' as const };
  const cred = Buffer.from(p.credential);
  if (!verify('sha256', cred, { key: issuerKey, ...es256 }, Buffer.from(p.issuer_sig, 'base64url')))
    return [400, { error: 'issuer_signature' }];
  const bound = Buffer.from(`${p.credential}.${row.nonce}`);
  if (!verify('sha256', bound, { key: holderKey, ...es256 }, Buffer.from(p.kb_sig, 'base64url')))
    return [400, { error: 'key_binding' }];
  const claims = Buffer.from(p.credential, 'base64url').toString('utf8');
  const now = new Date();
  const digest = createHmac('sha256', 'audit').update(`${id}.${claims}`).digest('hex');
  const signature = sign('sha256', Buffer.from(digest, 'hex'), { key: audit, ...es256 }).toString(
    'base64url',
  );
  const events = ['step.completed', 'session.completed'].map((event) =>
    JSON.stringify({ event, data: { session_id: id, claims: JSON.parse(claims) } }),
  );
  const conn = await pool.getConnection();
  try {
    statements += 7;
    await conn.query('BEGIN');
    const [moved] = await conn.execute(
      "UPDATE raw_session SET status = 'completed', version = version + 1, updated_at = ? WHERE id = ? AND status = 'requested'",
      [now, id],
    );
    if ((moved as mysql.ResultSetHeader).affectedRows !== 1) {
      await conn.query('ROLLBACK');
      return [409, { error: 'not_requested' }];
    }
    await conn.execute('INSERT INTO raw_result (session_id, claims, created_at) VALUES (?, ?, ?)', [
      id,
      claims,
      now,
    ]);
    await conn.execute(
      'INSERT INTO raw_audit (session_id, digest, signature, created_at) VALUES (?, ?, ?, ?)',
      [id, digest, signature, now],
    );
    await conn.execute('INSERT INTO raw_event (session_id, type, body) VALUES (?, ?, ?), (?, ?, ?)', [
      id,
      'step.completed',
      events[0],
      id,
      'session.completed',
      events[1],
    ]);
    // the page's read after the answer, inside the transaction after its writes (the service's is too)
    const [read] = await conn.execute('SELECT id, status, version FROM raw_session WHERE id = ?', [id]);
    row = (read as mysql.RowDataPacket[])[0];
    await conn.query('COMMIT');
  } finally {
    conn.release();
  }
  // delivered after answering, in order, as the relay does
  setImmediate(async () => {
    try {
      for (const e of events) await post(e);
      await q('UPDATE raw_event SET sent = 1 WHERE session_id = ?', [id]);
    } catch (e) {
      console.error('raw delivery failed', e);
    }
  });
  return [200, row];
}

async function route(method: string, url: string, body: string): Promise<[number, unknown]> {
  const [, , id, action] = url.split('/');
  if (method === 'POST' && url === '/s') {
    const sid = randomBytes(16).toString('hex');
    const now = new Date();
    await q(
      "INSERT INTO raw_session (id, status, version, created_at, updated_at) VALUES (?, 'created', 0, ?, ?)",
      [sid, now, now],
    );
    return [201, { id: sid }];
  }
  if (!id) return [404, {}];
  if (method === 'GET' && !action) {
    const [row] = await q('SELECT id, status, version FROM raw_session WHERE id = ?', [id]);
    return row ? [200, row] : [404, {}];
  }
  if (action === 'open') {
    if (!(await move(id, 'created', 'opened'))) return [409, {}];
    const [row] = await q('SELECT id, status, version FROM raw_session WHERE id = ?', [id]);
    return [200, row];
  }
  if (action === 'start') {
    if (!(await move(id, 'opened', 'started'))) return [409, {}];
    const [row] = await q('SELECT id, status, version FROM raw_session WHERE id = ?', [id]);
    return [200, row];
  }
  if (action === 'request') {
    const nonce = randomBytes(16).toString('hex');
    return (await move(id, 'started', 'requested', nonce)) ? [200, { nonce }] : [409, {}];
  }
  if (action === 'response') return respond(id, JSON.parse(body) as Presentation);
  return [404, {}];
}

async function main(): Promise<void> {
  for (const s of SCHEMA) await pool.query(s);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      route(req.method ?? 'GET', req.url ?? '/', Buffer.concat(chunks).toString('utf8')).then(
        ([status, out]) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(out));
        },
        (e: unknown) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: String(e) }));
        },
      );
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  process.on('disconnect', () => process.exit(0)); // the bench process is gone: never outlive it
  process.on('message', (m: { cmd?: string }) => {
    if (m.cmd === 'statements') {
      process.send?.({ statements });
      statements = 0;
    }
  });
  process.send?.({ ready: true, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
