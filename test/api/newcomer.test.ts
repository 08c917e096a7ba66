// The newcomer's way in (issue 20), as a person meets it:
// - `pnpm start` (server/src/main.ts in a child process, embedded default) prints a one-time owner link for the
//   seeded quickstart business; it signs in as that business's owner, who sees the session just created; a
//   restart prints a one-time sign-in link instead, and the first link is spent;
// - `/` is a start page in development (links to the dashboard, mailbox, receiver, API reference) and a plain
//   product page in production, never a JSON 404;
// - `/dev/mail` shows subject, recipient and time, and a message rendered with its links, escaped.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { configFrom } from '../../server/src/config/config';
import { createService, type Service } from '../../server/src/service';
import { authPost, DashboardClient } from '../support/dashboard';
import {
  createSession,
  type Embedded,
  embeddedEnv,
  quickstart,
  startEmbedded,
  stop,
  TSX_ENV,
} from '../support/embedded-process';
import { freePort } from '../support/harness';
import { tsNode } from '../support/script-bundles';

const dirs: string[] = [];
const newDataDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-newcomer-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const linkIn = (out: string, kind: 'accept-invitation' | 'sign-in') =>
  new RegExp(`Dashboard \\(opening this link[^\\n]*\\n\\s+(http\\S+/dashboard/${kind}#token=[\\w-]+)`).exec(
    out,
  )?.[1];
const tokenOf = (link: string) => new URLSearchParams(new URL(link).hash.slice(1)).get('token') ?? '';

describe('pnpm start on the embedded default', () => {
  let running: Embedded | undefined;
  afterAll(async () => stop(running));

  it('prints a one-time owner link for the quickstart business; the owner sees its sessions', async () => {
    const dataDir = newDataDir();
    running = await startEmbedded(dataDir);
    const qs = quickstart(dataDir);
    await expect.poll(() => linkIn(running?.output() ?? '', 'accept-invitation')).toBeTruthy();
    const invitation = linkIn(running.output(), 'accept-invitation') as string;
    const created = await createSession(running.baseUrl, qs.api_key, qs.workflow_id);
    expect(created.status).toBe(201);
    const sessionId = ((await created.json()) as { id: string }).id;

    const accepted = await authPost(running.baseUrl, '/auth/invitations/accept', {
      token: tokenOf(invitation),
    });
    expect(accepted.status).toBe(201);
    const owner = await DashboardClient.from(running.baseUrl, accepted);
    expect((await owner.gql('{ me { email role } }')).data.me).toEqual({
      email: 'owner@quickstart.localhost',
      role: 'owner',
    });
    // the quickstart business's own sessions: the one just created through its printed key
    const list = await owner.gql('{ sessions(first: 5) { nodes { id workflowId } } }');
    expect(list.data.sessions.nodes).toContainEqual({ id: sessionId, workflowId: qs.workflow_id });

    // a restart prints a sign-in link (the owner exists); the invitation is spent
    await stop(running);
    running = await startEmbedded(dataDir);
    await expect.poll(() => linkIn(running?.output() ?? '', 'sign-in')).toBeTruthy();
    expect(linkIn(running.output(), 'accept-invitation')).toBeUndefined();
    const signIn = linkIn(running.output(), 'sign-in') as string;
    const again = await authPost(running.baseUrl, '/auth/invitations/accept', { token: tokenOf(invitation) });
    expect(again.status).toBe(410);
    const verified = await authPost(running.baseUrl, '/auth/email-link/verify', { token: tokenOf(signIn) });
    expect(verified.status).toBe(200);
    const back = await DashboardClient.from(running.baseUrl, verified);
    expect((await back.gql('{ me { email role } }')).data.me.role).toBe('owner');
    const reuse = await authPost(running.baseUrl, '/auth/email-link/verify', { token: tokenOf(signIn) });
    expect(reuse.status).toBe(410);
  }, 240_000);
});

describe('pnpm start on a port another process holds', () => {
  it('says the port is in use and exits 1, leaving the other process its port', async () => {
    const port = await freePort();
    const holder = net.createServer((socket) => socket.end('held\n'));
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      const main = tsNode('server/src/main.ts');
      const dataDir = newDataDir();
      const run = await new Promise<{ code: number; stderr: string }>((resolve) => {
        execFile(
          main.file,
          main.args,
          {
            cwd: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'),
            env: { ...embeddedEnv(dataDir, `http://127.0.0.1:${port}`), ...TSX_ENV, PORT: String(port) },
            timeout: 90_000,
          },
          (err, _stdout, stderr) =>
            resolve({ code: err ? Number((err as { code?: number }).code) : 0, stderr }),
        );
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`127.0.0.1:${port} is in use by another process`);
      expect(run.stderr).not.toMatch(/Uncaught|at Server\./);
      // the holder still answers on its port
      const greeting = await new Promise<string>((resolve, reject) => {
        const c = net.connect(port, '127.0.0.1');
        c.on('data', (d) => resolve(d.toString()));
        c.on('error', reject);
      });
      expect(greeting).toBe('held\n');
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  }, 120_000);
});

async function inProcess(env: Record<string, string>): Promise<{ svc: Service; baseUrl: string }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const svc = await createService(
    configFrom({
      PORT: String(port),
      DATA_DIR: newDataDir(),
      BASE_URL: baseUrl,
      LOG_LEVEL: 'error',
      ...env,
    } as never),
    { workers: false },
  );
  await svc.listen();
  return { svc, baseUrl };
}

describe('/ and the development mailbox', () => {
  it('serves a start page in development and a product page in production, never a JSON 404', async () => {
    const dev = await inProcess({});
    try {
      const res = await fetch(`${dev.baseUrl}/`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await res.text();
      for (const href of ['/dashboard', '/dev/mail', '/dev/webhook-receiver', '/openapi.v1.json'])
        expect(html).toContain(`href="${href}"`);
      // the API reference it links is the committed OpenAPI contract
      const api = await fetch(`${dev.baseUrl}/openapi.v1.json`);
      expect(api.status).toBe(200);
      const doc = (await api.json()) as { openapi: string; paths: Record<string, unknown> };
      expect(doc.openapi).toMatch(/^3\.1/);
      expect(Object.keys(doc.paths)).toContain('/v1/sessions');
    } finally {
      await dev.svc.close();
    }
    const prod = await inProcess({ APP_ENV: 'production' });
    try {
      const res = await fetch(`${prod.baseUrl}/`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toContain('href="/dashboard"');
      expect(html).not.toContain('/dev/');
    } finally {
      await prod.svc.close();
    }
  }, 120_000);

  it('lists messages by subject, recipient and time, and renders one with its links, escaped', async () => {
    const { svc, baseUrl } = await inProcess({});
    try {
      const { link } = await svc.accounts.invitations.createBusinessWithOwner(
        '<img src=x onerror=alert(1)> & "Co"',
        'owner@mail.test',
        'ops',
      );
      // the invitation names no business (spec §1): a hostile subject reaches the mailbox through another mail
      await svc.mail.send({
        to: 'owner@mail.test',
        subject: 'Your verification code for <img src=x onerror=alert(1)> & "Co"',
        text: 'For <img src=x onerror=alert(1)> & "Co"',
      });
      const list = await fetch(`${baseUrl}/dev/mail`);
      expect(list.status).toBe(200);
      const html = await list.text();
      expect(html).toContain('Your dashboard invitation');
      expect(html).toContain(
        'Your verification code for &#60;img src=x onerror=alert(1)&#62; &#38; &#34;Co&#34;',
      );
      expect(html).not.toContain('<img');
      expect(html).toContain('owner@mail.test');
      expect(html).toMatch(
        /<time datetime="\d{4}-\d\d-\d\dT[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC<\/time>/,
      );
      const href = /href="(\/dev\/mail\/[^"]+\.eml)"><span class="subject">Your dashboard invitation/.exec(
        html,
      )?.[1] as string;
      expect(href).toBeTruthy();

      const msg = await fetch(`${baseUrl}${href}`);
      expect(msg.status).toBe(200);
      expect(msg.headers.get('content-type')).toMatch(/^text\/html/);
      const page = await msg.text();
      // the invitation link is a link (its token's characters need no escaping), the rest is text
      expect(page).toContain(`<a href="${link}" rel="noreferrer">${link}</a>`);
      expect(page).toContain('Open this link within 24 hours');
      expect(page).not.toContain('<img');
      // the raw message is still there
      const raw = await fetch(`${baseUrl}${href}?format=eml`);
      expect(raw.headers.get('content-type')).toMatch(/^message\/rfc822/);
      expect(await raw.text()).toMatch(/^Subject: /m);
    } finally {
      await svc.close();
    }
  }, 120_000);
});
