// The people side, black-box: the operator CLI creates a business and mails the owner's invitation through a
// real SMTP server; the owner accepts from the mailed link, signs in by emailed link, invites a developer
// (who cannot touch production), manages API keys (a revoked key gets 401 at once), and the old API-key access
// to dashboard operations is refused. The service runs on a ManualClock for the 24 h invitation deadline.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { SignInLinkEntity } from '../../server/src/modules/accounts/accounts.entities';
import { authPost, DashboardClient, linkToken, runOperator, sessionCookie } from '../support/dashboard';
import { Api, type Json, startTestService, type TestService } from '../support/harness';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp';

const HOUR = 3600_000;

describe('accounts: people, sign-in, invitations, API keys, operator', () => {
  const clock = new ManualClock(Date.now());
  let t: TestService;
  let smtp: TestSmtpServer;
  let owner: DashboardClient;
  let businessId: string;
  const ownerEmail = 'owner@acme.test';

  const mailTo = (to: string, after = 0) =>
    smtp.waitFor(
      (m) => m.to !== undefined && JSON.stringify(m.to).includes(to) && smtp.messages.indexOf(m) >= after,
    );

  const signInByLink = async (email: string) => {
    const before = smtp.messages.length;
    await authPost(t.baseUrl, '/auth/email-link', { email });
    const token = linkToken((await mailTo(email, before)).text);
    return DashboardClient.from(t.baseUrl, await authPost(t.baseUrl, '/auth/email-link/verify', { token }));
  };
  /** Moves the clock; the owner signs in again (sessions end after 12 idle hours). */
  const advance = async (ms: number) => {
    clock.advance(ms);
    owner = await signInByLink(ownerEmail);
  };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestService({ label: 'accounts', clock, smtpUrl: smtp.url, workers: false });
  });
  afterAll(async () => {
    await t?.stop();
    await smtp?.stop();
  });

  it('the operator creates a business; the owner accepts the mailed link once and is signed in', async () => {
    const env = {
      DATABASE_URL: t.db.url,
      DATA_DIR: t.svc.config.dataDir,
      BASE_URL: t.baseUrl,
      SMTP_URL: smtp.url,
    };
    const out = await runOperator(
      ['create-business', '--name', 'Acme GmbH', '--owner-email', ownerEmail, '--operator', 'ops-alice'],
      env,
    );
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    businessId = JSON.parse(out.stdout).business_id;
    expect(businessId).toMatch(/^biz_/);

    const mail = await mailTo(ownerEmail);
    // the mail carries only the link: an opaque token of >= 128 bits, no ids, no role
    const token = linkToken(mail.text);
    expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(mail.text).not.toContain(businessId);
    expect(mail.text).not.toMatch(/owner|admin|developer/i);
    expect(mail.attachments).toEqual([]);
    // nothing that identifies the business, in the subject, the body or the HTML (spec §1)
    expect(`${mail.subject} ${mail.text} ${mail.html || ''}`).not.toMatch(/acme/i);

    const res = await authPost(t.baseUrl, '/auth/invitations/accept', { token });
    expect(res.status).toBe(201);
    const cookie = sessionCookie(res);
    expect(cookie?.attributes).toMatch(/HttpOnly/);
    expect(cookie?.attributes).toMatch(/Secure/);
    expect(cookie?.attributes).toMatch(/SameSite=Strict/);
    owner = await DashboardClient.from(t.baseUrl, res);
    const me = await owner.gql('{ me { email role } }');
    expect(me.data.me).toEqual({ email: ownerEmail, role: 'owner' });

    // used once: a second accept is refused, whoever sends it
    const again = await authPost(t.baseUrl, '/auth/invitations/accept', { token });
    expect([again.status, ((await again.json()) as Json).code]).toEqual([410, 'invitation_invalid']);

    // the operator's action is in the operator audit log
    const log = await runOperator(['audit-log', '--operator', 'ops-alice'], env);
    expect(JSON.parse(log.stdout).map((e: Json) => [e.operator, e.action, e.target])).toContainEqual([
      'ops-alice',
      'business.create',
      businessId,
    ]);
  }, 120_000);

  it('refuses cookie-authenticated GraphQL without the CSRF token, and bad sign-in input with 4xx codes', async () => {
    const noCsrf = await owner.gql('{ me { email } }', {}, { 'X-CSRF-Token': '' });
    expect([noCsrf.status, noCsrf.code]).toEqual([403, 'csrf_token_invalid']);
    const wrongCsrf = await owner.gql('{ me { email } }', {}, { 'X-CSRF-Token': 'x'.repeat(43) });
    expect([wrongCsrf.status, wrongCsrf.code]).toEqual([403, 'csrf_token_invalid']);
    // The cookie without any CSRF header (a cross-site form, or the signer page in a browser that is also
    // signed in): not a dashboard request at all, so it acts as nobody, and reads nothing of the user.
    const noHeader = await fetch(`${t.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: `svc_dashboard=${owner.cookie}` },
      body: JSON.stringify({ query: '{ me { email } }' }),
    });
    const noHeaderBody = (await noHeader.json()) as Json;
    expect(noHeaderBody.data?.me ?? null).toBeNull();
    expect(noHeaderBody.errors?.[0]?.extensions?.code).toBe('unauthenticated');
    const badEnv = await owner.gql('{ me { email } }', {}, { 'X-Environment': 'staging' });
    expect([badEnv.status, badEnv.code]).toEqual([400, 'validation_failed']);
    for (const [p, body, status, code] of [
      ['/auth/invitations/accept', { token: 'nope' }, 410, 'invitation_invalid'],
      ['/auth/invitations/accept', { token: 42 }, 410, 'invitation_invalid'],
      ['/auth/email-link/verify', { token: 'A'.repeat(43) }, 410, 'sign_in_link_invalid'],
      ['/auth/email-link', { email: 'not an email' }, 400, 'validation_failed'],
      ['/auth/email-link', [], 400, 'validation_failed'],
      ['/auth/passkeys/authenticate', { challenge_id: 'x', response: {} }, 401, 'passkey_invalid'],
    ] as const) {
      const res = await authPost(t.baseUrl, p, body);
      expect([p, res.status, ((await res.json()) as Json).code]).toEqual([p, status, code]);
    }
    const garbage = await fetch(`${t.baseUrl}/auth/email-link`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{',
    });
    expect(garbage.status).toBe(400);
  });

  it('signs in by an emailed one-time link; unknown addresses get the same 202 and no mail', async () => {
    const before = smtp.messages.length;
    const unknown = await authPost(t.baseUrl, '/auth/email-link', { email: 'nobody@acme.test' });
    expect(unknown.status).toBe(202);
    const res = await authPost(t.baseUrl, '/auth/email-link', { email: 'OWNER@acme.test' });
    expect(res.status).toBe(202);
    const mail = await mailTo(ownerEmail, before);
    const token = linkToken(mail.text);
    expect(smtp.messages.slice(before).some((m) => JSON.stringify(m.to).includes('nobody@'))).toBe(false);

    const signedIn = await authPost(t.baseUrl, '/auth/email-link/verify', { token });
    expect(signedIn.status).toBe(200);
    const second = await DashboardClient.from(t.baseUrl, signedIn);
    expect((await second.gql('{ me { email } }')).data.me.email).toBe(ownerEmail);
    const reuse = await authPost(t.baseUrl, '/auth/email-link/verify', { token });
    expect(reuse.status).toBe(410);

    // the user sees both sessions and revokes the second: refused at once
    const sessions = await owner.gql('{ mySessions { id method current } }');
    expect(sessions.data.mySessions.map((s: Json) => s.method).sort()).toEqual(['email_link', 'invitation']);
    const other = sessions.data.mySessions.find((s: Json) => !s.current);
    expect(other.method).toBe('email_link');
    const revoked = await owner.gql('mutation($id: ID!) { revokeMySession(id: $id) }', { id: other.id });
    expect(revoked.data.revokeMySession).toBe(true);
    expect((await second.gql('{ me { email } }')).code).toBe('unauthenticated');
    expect((await owner.gql('{ mySessions { id } }')).data.mySessions).toHaveLength(1);
  });

  it('sign-out ends the session on the server', async () => {
    const before = smtp.messages.length;
    await authPost(t.baseUrl, '/auth/email-link', { email: ownerEmail });
    const s = await DashboardClient.from(
      t.baseUrl,
      await authPost(t.baseUrl, '/auth/email-link/verify', {
        token: linkToken((await mailTo(ownerEmail, before)).text),
      }),
    );
    expect((await s.rest('GET', '/auth/session')).body.user.email).toBe(ownerEmail);
    const noCsrf = await s.rest('POST', '/auth/sign-out', undefined, { 'X-CSRF-Token': '' });
    expect([noCsrf.status, noCsrf.body.code]).toEqual([403, 'csrf_token_invalid']);
    expect((await s.rest('POST', '/auth/sign-out')).status).toBe(204);
    expect((await s.rest('GET', '/auth/session')).status).toBe(401);
    expect((await s.gql('{ me { email } }')).code).toBe('unauthenticated');
  });

  describe('invitations', () => {
    let developer: DashboardClient;

    it('invites a developer; a resend mails a fresh link, kills the old one and keeps the deadline', async () => {
      const before = smtp.messages.length;
      const inv = await owner.gql(
        'mutation { invite(email: "dev@acme.test", role: developer) { id status expiresAt createdAt } }',
      );
      expect(inv.data.invite.status).toBe('pending');
      expect(
        new Date(inv.data.invite.expiresAt).getTime() - new Date(inv.data.invite.createdAt).getTime(),
      ).toBe(24 * HOUR);
      const firstMail = await mailTo('dev@acme.test', before);
      expect(`${firstMail.subject} ${firstMail.text}`).not.toMatch(/acme gmbh/i);
      const first = linkToken(firstMail.text);

      await advance(23 * HOUR);
      const after = smtp.messages.length;
      const resent = await owner.gql('mutation($id: ID!) { resendInvitation(id: $id) { expiresAt } }', {
        id: inv.data.invite.id,
      });
      expect(resent.data.resendInvitation.expiresAt).toBe(inv.data.invite.expiresAt);
      const fresh = linkToken((await mailTo('dev@acme.test', after)).text);
      expect(fresh).not.toBe(first);
      expect((await authPost(t.baseUrl, '/auth/invitations/accept', { token: first })).status).toBe(410);

      const res = await authPost(t.baseUrl, '/auth/invitations/accept', { token: fresh });
      expect(res.status).toBe(201);
      developer = await DashboardClient.from(t.baseUrl, res);
      expect((await developer.gql('{ me { role } }')).data.me.role).toBe('developer');
    });

    it('is valid exactly 24 hours from creation, also after a resend', async () => {
      const before = smtp.messages.length;
      const inv = await owner.gql('mutation { invite(email: "late@acme.test", role: viewer) { id } }');
      await mailTo('late@acme.test', before);
      await advance(12 * HOUR);
      const after = smtp.messages.length;
      await owner.gql('mutation($id: ID!) { resendInvitation(id: $id) { id } }', { id: inv.data.invite.id });
      const token = linkToken((await mailTo('late@acme.test', after)).text);
      await advance(12 * HOUR); // exactly 24 h after creation
      const res = await authPost(t.baseUrl, '/auth/invitations/accept', { token });
      expect([res.status, ((await res.json()) as Json).code]).toEqual([410, 'invitation_invalid']);
      const list = await owner.gql('{ invitations { id status } }');
      expect(list.data.invitations.find((i: Json) => i.id === inv.data.invite.id).status).toBe('expired');
      const resend = await owner.gql('mutation($id: ID!) { resendInvitation(id: $id) { id } }', {
        id: inv.data.invite.id,
      });
      expect(resend.code).toBe('invitation_invalid');
    });

    it('a revoked invitation cannot be accepted', async () => {
      const before = smtp.messages.length;
      const inv = await owner.gql('mutation { invite(email: "gone@acme.test", role: viewer) { id } }');
      const token = linkToken((await mailTo('gone@acme.test', before)).text);
      const rev = await owner.gql('mutation($id: ID!) { revokeInvitation(id: $id) { status } }', {
        id: inv.data.invite.id,
      });
      expect(rev.data.revokeInvitation.status).toBe('revoked');
      expect((await authPost(t.baseUrl, '/auth/invitations/accept', { token })).status).toBe(410);
    });

    it('the developer builds in sandbox but cannot touch production, keys or people', async () => {
      developer = await signInByLink('dev@acme.test'); // the clock moved on: a fresh session
      const create =
        'mutation { createWorkflow(input: { name: "KYC", steps: [{ primitive: identify, claims: ["given_name"] }] }) { id } }';
      expect((await developer.gql(create)).data.createWorkflow.id).toMatch(/^wf_/);
      const prod = developer.in('production');
      const refused = await prod.gql(create);
      expect([refused.errors?.[0]?.extensions?.status, refused.code]).toEqual([403, 'role_insufficient']);
      expect(
        (await prod.gql('mutation { configureWebhookEndpoint(url: "https://example.com/h") { id } }')).code,
      ).toBe('role_insufficient');
      expect((await prod.gql('mutation { createApiKey(label: "x") { key } }')).code).toBe(
        'role_insufficient',
      );
      // reading production is fine
      const read = await prod.gql('{ workflows { id } }');
      expect([read.errors, Array.isArray(read.data.workflows)]).toEqual([undefined, true]);
      // people are for admins
      expect(
        (await developer.gql('mutation { invite(email: "x@acme.test", role: viewer) { id } }')).code,
      ).toBe('role_insufficient');
      expect((await developer.gql('{ members { email role } }')).data.members).toEqual(
        expect.arrayContaining([
          { email: ownerEmail, role: 'owner' },
          { email: 'dev@acme.test', role: 'developer' },
        ]),
      );
    });
  });

  describe('API keys', () => {
    it('creates a key (shown once), lists it by prefix with creator and last use, and a revoke is 401 at once', async () => {
      const created = await owner.gql(
        'mutation { createApiKey(label: "backend") { key apiKey { id prefix environment createdBy scopes lastUsedAt } } }',
      );
      const { key, apiKey } = created.data.createApiKey;
      expect(key).toMatch(/^sk_sandbox_/);
      expect(key.startsWith(apiKey.prefix)).toBe(true);
      expect(apiKey).toMatchObject({ environment: 'sandbox', scopes: null, lastUsedAt: null });
      const me = (await owner.gql('{ me { id } }')).data.me;
      expect(apiKey.createdBy).toBe(me.id);

      const api = new Api(t.baseUrl, key, null);
      expect((await api.rest('GET', '/v1/sessions/sess_unknown')).status).toBe(404);
      const listed = await owner.gql('{ apiKeys { id prefix lastUsedAt revokedAt } }');
      const row = listed.data.apiKeys.find((k: Json) => k.id === apiKey.id);
      expect(row.lastUsedAt).not.toBeNull();
      expect(JSON.stringify(listed)).not.toContain(key.slice(apiKey.prefix.length + 1));
      // production keys are listed and made in production only
      expect((await owner.in('production').gql('{ apiKeys { id } }')).data.apiKeys).toEqual([]);

      const revoked = await owner.gql('mutation($id: ID!) { revokeApiKey(id: $id) { revokedAt } }', {
        id: apiKey.id,
      });
      expect(revoked.data.revokeApiKey.revokedAt).not.toBeNull();
      const after = await api.rest('GET', '/v1/sessions/sess_unknown');
      expect([after.status, after.body.code]).toEqual([401, 'unauthenticated']);
      expect(
        (await owner.gql('mutation($id: ID!) { revokeApiKey(id: $id) { id } }', { id: apiKey.id })).code,
      ).toBe('not_found');
    });

    it('a scoped key gets 403 api_key_scope_missing where its scope is missing', async () => {
      const created = await owner.gql(
        'mutation { createApiKey(label: "reader", scopes: [sessions_read]) { key } }',
      );
      expect(created.errors).toBeUndefined();
      const api = new Api(t.baseUrl, created.data.createApiKey.key, null);
      const create = await api.rest('POST', '/v1/sessions', { workflow_id: 'wf_x' });
      expect([create.status, create.body.code]).toEqual([403, 'api_key_scope_missing']);
      const audit = await api.rest('GET', '/v1/audits/sess_x_0');
      expect([audit.status, audit.body.code]).toEqual([403, 'api_key_scope_missing']);
      expect((await api.rest('GET', '/v1/sessions/sess_unknown')).status).toBe(404);
      const gqlCreate = await api.gql('mutation { createSession(input: { workflowId: "wf_x" }) { id } }');
      expect(gqlCreate.errors?.[0]?.extensions?.code).toBe('api_key_scope_missing');
    });

    it('the old API-key access to dashboard operations is refused; the session mirror keeps working', async () => {
      const created = await owner.gql('mutation { createApiKey(label: "full") { key } }');
      const api = new Api(t.baseUrl, created.data.createApiKey.key, null);
      for (const op of [
        '{ workflows { id } }',
        'mutation { createWorkflow(input: { name: "x" }) { id } }',
        '{ webhookEndpoint { url } }',
        'mutation { configureWebhookEndpoint(url: "https://example.com/h") { secret } }',
        '{ webhookDeliveries { id } }',
        '{ apiKeys { id } }',
        'mutation { createApiKey(label: "escalate") { key } }',
        '{ members { id } }',
        'mutation { invite(email: "x@acme.test", role: owner) { id } }',
      ]) {
        const res = await api.gql(op);
        expect([op, res.errors?.[0]?.extensions?.code]).toEqual([op, 'dashboard_user_required']);
      }
      const mirror = await api.gql('query { session(id: "sess_unknown") { id } }');
      expect(mirror.errors?.[0]?.extensions?.code).toBe('not_found');
    });
  });

  it('nobody grants more than they hold', async () => {
    const before = smtp.messages.length;
    await owner.gql('mutation { invite(email: "admin@acme.test", role: admin) { id } }');
    const admin = await DashboardClient.from(
      t.baseUrl,
      await authPost(t.baseUrl, '/auth/invitations/accept', {
        token: linkToken((await mailTo('admin@acme.test', before)).text),
      }),
    );
    expect((await admin.gql('mutation { invite(email: "o2@acme.test", role: owner) { id } }')).code).toBe(
      'role_insufficient',
    );
    expect(
      (await admin.gql('mutation { invite(email: "v@acme.test", role: viewer) { id } }')).data.invite.id,
    ).toMatch(/^inv_/);
    // roles change (never above one's own; the last owner stays) and members can be removed
    const members = (await owner.gql('{ members { id email role } }')).data.members as Json[];
    const dev = members.find((u) => u.email === 'dev@acme.test');
    const me = members.find((u) => u.email === ownerEmail);
    expect(
      (
        await admin.gql('mutation($u: ID!) { setMemberRole(userId: $u, role: owner) { role } }', {
          u: dev.id,
        })
      ).code,
    ).toBe('role_insufficient');
    expect(
      (
        await owner.gql('mutation($u: ID!) { setMemberRole(userId: $u, role: viewer) { role } }', {
          u: me.id,
        })
      ).code,
    ).toBe('validation_failed');
    const devSession = await signInByLink('dev@acme.test');
    expect(
      (
        await admin.gql('mutation($u: ID!) { setMemberRole(userId: $u, role: viewer) { role } }', {
          u: dev.id,
        })
      ).data.setMemberRole.role,
    ).toBe('viewer');
    expect((await devSession.gql('{ me { role } }')).code).toBe('unauthenticated'); // privilege change: signed out
    expect(
      (await admin.gql('mutation($u: ID!) { removeMember(userId: $u) }', { u: dev.id })).data.removeMember,
    ).toBe(true);
    const gone = await authPost(t.baseUrl, '/auth/email-link', { email: 'dev@acme.test' });
    expect(gone.status).toBe(202);
    expect((await owner.gql('{ members { email } }')).data.members.map((u: Json) => u.email)).not.toContain(
      'dev@acme.test',
    );
    // an admin ships to production
    expect(
      (await admin.in('production').gql('mutation { createApiKey(label: "live") { key } }')).data.createApiKey
        .key,
    ).toMatch(/^sk_production_/);
  });

  it('sends at most five sign-in links per person and hour; the sixth request is answered the same and mails nothing', async () => {
    clock.advance(2 * 3600_000); // a fresh hour: the earlier tests' links are older than an hour
    const before = smtp.messages.length;
    for (let i = 0; i < 6; i++)
      expect((await authPost(t.baseUrl, '/auth/email-link', { email: ownerEmail })).status).toBe(202);
    await smtp.waitFor(
      () => smtp.messages.slice(before).filter((x) => JSON.stringify(x.to).includes(ownerEmail)).length >= 5,
    );
    const links = await t.svc.ds
      .getRepository(SignInLinkEntity)
      .createQueryBuilder('l')
      .where('l.created_at > :since', { since: new Date(clock.now().getTime() - 3600_000) })
      .getCount();
    expect(links).toBe(5);
    // an hour later the person can ask again
    clock.advance(3600_000 + 1);
    const n = smtp.messages.length;
    expect((await authPost(t.baseUrl, '/auth/email-link', { email: ownerEmail })).status).toBe(202);
    await mailTo(ownerEmail, n);
  });
});
