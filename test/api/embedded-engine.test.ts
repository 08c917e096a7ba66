// The embedded default (no DATABASE_URL) must not lose work (ADR 0030). The real entry point
// (server/src/main.ts, what `pnpm start` runs) serves an empty DATA_DIR in a child process:
// - the real operator CLI (`pnpm operator create-business`) runs beside it on the same DATA_DIR, and the
//   running service then finds the business and its invitation (sql.js kept its own in-memory copy and wrote
//   it over the file on its next commit: the business was gone and the link answered invitation_invalid);
// - the service is killed with SIGKILL while many creates are in flight, and after a restart every create it
//   had acknowledged (201) is there.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { authPost, DashboardClient } from '../support/dashboard';
import {
  createSession,
  type Embedded,
  embeddedEnv,
  pnpmOperator,
  quickstart,
  startEmbedded,
  stop,
} from '../support/embedded-process';
import type { Json } from '../support/harness';

describe('the embedded engine (SQLite file, WAL, file locks)', () => {
  const dirs: string[] = [];
  let running: Embedded | undefined;
  const newDataDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-embedded-'));
    dirs.push(d);
    return d;
  };
  afterEach(async () => {
    await stop(running, 'SIGKILL');
    running = undefined;
  });
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('the operator CLI creates a business beside the running service, which then accepts its invitation', async () => {
    const dataDir = newDataDir();
    running = await startEmbedded(dataDir);
    const { baseUrl } = running;
    const qs = quickstart(dataDir);

    const created = await pnpmOperator(
      [
        'create-business',
        '--name',
        'Beside GmbH',
        '--owner-email',
        'owner@beside.test',
        '--operator',
        'ops-eve',
      ],
      embeddedEnv(dataDir, baseUrl),
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const { business_id: businessId, invitation_link: link } = created.json as Json;
    expect(businessId).toMatch(/^biz_/);

    // the running service commits writes of its own afterwards (sql.js rewrote the whole file here)
    for (let i = 0; i < 5; i++)
      expect((await createSession(baseUrl, qs.api_key, qs.workflow_id)).status).toBe(201);

    // the invitation printed by the CLI is valid through the running service
    const token = new URLSearchParams(new URL(link).hash.slice(1)).get('token') ?? '';
    expect(token.length).toBeGreaterThan(20);
    const accepted = await authPost(baseUrl, '/auth/invitations/accept', { token });
    expect(accepted.status).toBe(201);
    const owner = await DashboardClient.from(baseUrl, accepted);
    const me = await owner.gql('{ me { email role } }');
    expect(me.data.me).toEqual({ email: 'owner@beside.test', role: 'owner' });

    // and the CLI, run again beside it, reads what both wrote
    const log = await pnpmOperator(['audit-log', '--operator', 'ops-eve'], embeddedEnv(dataDir, baseUrl));
    expect(log.code).toBe(0);
    expect((log.json as Json[]).map((e) => [e.operator, e.action, e.target])).toContainEqual([
      'ops-eve',
      'business.create',
      businessId,
    ]);
  }, 240_000);

  it('keeps every acknowledged create and stop when the service is killed with SIGKILL mid-load', async () => {
    const dataDir = newDataDir();
    running = await startEmbedded(dataDir, { RATE_LIMIT: '100000/10' });
    const { baseUrl } = running;
    const qs = quickstart(dataDir);

    // acknowledged creates (201) and stops (200: a transaction of several statements, open across awaits while
    // the creates of other requests arrive)
    const acknowledged: string[] = [];
    const stopped = new Set<string>();
    const abort = new AbortController();
    let killed = false;
    const worker = async (n: number) => {
      // bounded: at most 400 creates per worker, and the loop ends with the kill
      for (let i = 0; i < 400 && !killed; i++) {
        try {
          const res = await createSession(baseUrl, qs.api_key, qs.workflow_id, abort.signal);
          if (res.status !== 201) continue;
          const { id } = (await res.json()) as { id: string };
          acknowledged.push(id);
          if (n % 2 === 0) {
            const stop = await fetch(`${baseUrl}/v1/sessions/${id}/stop`, {
              method: 'POST',
              headers: { Authorization: `Bearer ${qs.api_key}` },
              signal: abort.signal,
            });
            if (stop.status === 200 && ((await stop.json()) as { status: string }).status === 'stopped')
              stopped.add(id);
          }
        } catch {
          // the connection died with the process: not acknowledged
        }
      }
    };
    const workers = Array.from({ length: 16 }, (_, n) => worker(n));
    // kill with creates in flight, once a good number have been acknowledged
    const deadline = Date.now() + 60_000;
    while (acknowledged.length < 150 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const atKill = acknowledged.length;
    running.child.kill('SIGKILL');
    killed = true;
    await new Promise((r) => running?.child.once('exit', r));
    abort.abort();
    await Promise.all(workers);
    expect(atKill).toBeGreaterThanOrEqual(150);
    expect(stopped.size).toBeGreaterThan(20);

    running = await startEmbedded(dataDir, { RATE_LIMIT: '100000/10' });
    const missing: string[] = [];
    for (const id of acknowledged) {
      const res = await fetch(`${running.baseUrl}/v1/sessions/${id}`, {
        headers: { Authorization: `Bearer ${qs.api_key}` },
      });
      if (res.status !== 200) missing.push(`${id}: ${res.status}`);
      else if (stopped.has(id) && ((await res.json()) as { status: string }).status !== 'stopped')
        missing.push(`${id}: stop lost`);
    }
    expect(missing).toEqual([]);
    expect(acknowledged.length).toBeGreaterThanOrEqual(atKill);
  }, 240_000);
});
