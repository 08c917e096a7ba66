import mysql from 'mysql2';
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
const pid = Number(process.argv[2]);
const N = Number(process.argv[3] ?? 1500);
const t = JSON.parse(fs.readFileSync('/tmp/target.out','utf8'));
const conn = mysql.createConnection({ uri: 'mysql://svc_ci:svc_ci@127.0.0.1:3306/dbexp', multipleStatements: true, timezone: 'Z' });
const q = (s, p=[]) => new Promise((res, rej) => conn.query(s, p, (e, r) => e ? rej(e) : res(r)));
const x = (s, p=[]) => new Promise((res, rej) => conn.execute(s, p, (e, r) => e ? rej(e) : res(r)));
const cpu = () => { const f = fs.readFileSync(`/proc/${pid}/stat`,'utf8').split(') ')[1].split(' '); return (Number(f[11])+Number(f[12]))*10000; }; // us
const [wf] = await q('SELECT business_id FROM workflow WHERE id = ?', [t.workflowId]);
const biz = wf.business_id; const W = t.workflowId;
const id = () => 'sess_' + randomBytes(13).toString('hex').slice(0,26);
const now = () => new Date().toISOString().replace('T',' ').replace('Z','');
const cols = 'id, business_id, environment, workflow_id, workflow_revision, status, version, current_stage, metadata, expires_at, step_expires_at, decision_due_at, decision_reminded_at, binding_hash, created_at, updated_at, ended_at, failure_reason, return_url';
const vals = (s) => [s, biz, 'sandbox', W, 1, 'created', 0, 0, '{"order":1}', now(), null, null, null, null, now(), now(), null, null, null];
const guard = `FROM workflow w WHERE w.id = ? AND w.business_id = ? AND w.environment = ? AND w.latest_revision = 1 AND EXISTS (SELECT 1 FROM webhook_endpoint e WHERE e.business_id = ? AND e.environment = ?)`;
const route = ` AND EXISTS (SELECT 1 FROM credential_route cr JOIN credential_issuer ci ON ci.id = cr.issuer_id JOIN wallet wa ON wa.id = cr.wallet_id WHERE cr.identify = 1 AND (cr.formats LIKE '%"dc+sd-jwt"%' ESCAPE '!' OR cr.formats LIKE '%"mso!_mdoc"%' ESCAPE '!') AND cr.sandbox_available = 1)`;
const gp = [W, biz, 'sandbox', biz, 'sandbox'];
const ev = (s) => ['sev_'+randomBytes(13).toString('hex').slice(0,26), s, biz, 'sandbox', now(), '0000179543317485500'+Math.floor(Math.random()*10), 'created', null, null, null, s, biz, 'sandbox'];
const evSql = "INSERT INTO session_event (id, session_id, business_id, environment, at, order_key, kind, stage, code, detail) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM session WHERE id = ? AND business_id = ? AND environment = ?";
const ph = Array(19).fill('?').join(', ');
const lookup = t.apiKey.split('_')[2];
const g0 = `FROM workflow w WHERE w.id = ? AND w.business_id = ? AND w.environment = ? AND w.latest_revision = 1`;
const routeNoJoin = ` AND EXISTS (SELECT 1 FROM credential_route cr WHERE cr.identify = 1 AND (cr.formats LIKE '%"dc+sd-jwt"%' ESCAPE '!' OR cr.formats LIKE '%"mso!_mdoc"%' ESCAPE '!') AND cr.sandbox_available = 1)`;
const variants = {
  gWorkflowOnly: () => { const s=id(); return q(`INSERT INTO session (${cols}) SELECT ${ph} ${g0}`, [...vals(s), W, biz, 'sandbox']); },
  gWorkflowEndpoint: () => { const s=id(); return q(`INSERT INTO session (${cols}) SELECT ${ph} ${guard}`, [...vals(s), ...gp]); },
  gRouteNoJoin: () => { const s=id(); return q(`INSERT INTO session (${cols}) SELECT ${ph} ${guard}${routeNoJoin}`, [...vals(s), ...gp]); },
  gFullRC: async () => { const s=id(); return q(`INSERT INTO session (${cols}) SELECT ${ph} ${guard}${route}`, [...vals(s), ...gp]); },
  selectGuardOnly: () => q(`SELECT 1 ${guard}${route}`, gp),

  rawInsertPrepared: () => { const s=id(); return x(`INSERT INTO session (${cols}) VALUES (${ph})`, vals(s)); },
  rawInsertText: () => { const s=id(); return q(`INSERT INTO session (${cols}) VALUES (${ph})`, vals(s)); },
  keySelectPrepared: () => x('SELECT id, business_id, environment, lookup, secret_hash, label, created_at, revoked_at, scopes, created_by, last_used_at FROM api_key WHERE lookup = ?', [lookup]),
  fullBatch: () => { const s=id(); return q(`START TRANSACTION;\nINSERT INTO session (${cols}) SELECT ${ph} ${guard}${route};\n${evSql};\nCOMMIT`, [...vals(s), ...gp, ...ev(s)]); },
  batchNoRoute: () => { const s=id(); return q(`START TRANSACTION;\nINSERT INTO session (${cols}) SELECT ${ph} ${guard};\n${evSql};\nCOMMIT`, [...vals(s), ...gp, ...ev(s)]); },
  batchNoEvent: () => { const s=id(); return q(`START TRANSACTION;\nINSERT INTO session (${cols}) SELECT ${ph} ${guard}${route};\nCOMMIT`, [...vals(s), ...gp]); },
  guardedAutocommit: () => { const s=id(); return q(`INSERT INTO session (${cols}) SELECT ${ph} ${guard}${route}`, [...vals(s), ...gp]); },
  plainTxnWithEvent: () => { const s=id(); return q(`START TRANSACTION;\nINSERT INTO session (${cols}) VALUES (${ph});\n${evSql};\nCOMMIT`, [...vals(s), ...ev(s)]); },
  keyPlusBatch: () => { const s=id(); return q(`SELECT id, business_id, environment, lookup, secret_hash, label, created_at, revoked_at, scopes, created_by, last_used_at FROM api_key WHERE lookup = ?;\nSTART TRANSACTION;\nINSERT INTO session (${cols}) SELECT ${ph} ${guard}${route};\n${evSql};\nCOMMIT`, [lookup, ...vals(s), ...gp, ...ev(s)]); },
};
for (const [name, fn] of Object.entries(variants)) {
  if (name === 'gFullRC') await q("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
  if (process.argv[4] && !process.argv[4].split(',').includes(name)) continue;
  for (let i=0;i<100;i++) await fn();
  const c0 = cpu(); const t0 = Date.now();
  for (let i=0;i<N;i++) await fn();
  const c = cpu()-c0; const ms = Date.now()-t0;
  console.log(`${name.padEnd(22)} db CPU ${(c/N).toFixed(0).padStart(5)} us/op   wall ${(ms*1000/N).toFixed(0)} us/op`);
}
conn.end();
