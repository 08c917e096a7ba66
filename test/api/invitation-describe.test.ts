// POST /auth/invitations/describe (issue 29): the invitation page may name the business before accepting.
// A pending invitation answers its business name and role and stays usable; an unknown, malformed or spent
// token is 410 invitation_invalid, the same answer as accept gives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authPost, linkToken } from '../support/dashboard';
import { startTestService, type TestService } from '../support/harness';

describe('describing an invitation before accepting it', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ label: 'invitation_describe', workers: false });
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
  });

  it('names the business and role, leaves the token usable, and refuses bad or spent tokens', async () => {
    const { link } = await t.svc.accounts.invitations.createBusinessWithOwner(
      'Nordlicht GmbH',
      'owner@nordlicht.test',
      'op',
    );
    const token = linkToken(link);
    const described = await authPost(t.baseUrl, '/auth/invitations/describe', { token });
    expect(described.status).toBe(200);
    expect(await described.json()).toEqual({ business_name: 'Nordlicht GmbH', role: 'owner' });

    for (const bad of [{}, { token: 42 }, { token: 'x'.repeat(40) }]) {
      const r = await authPost(t.baseUrl, '/auth/invitations/describe', bad);
      expect(r.status).toBe(410);
      expect(((await r.json()) as { code: string }).code).toBe('invitation_invalid');
    }

    // describing did not spend it; once accepted it is described no more
    expect((await authPost(t.baseUrl, '/auth/invitations/accept', { token })).status).toBe(201);
    const spent = await authPost(t.baseUrl, '/auth/invitations/describe', { token });
    expect(spent.status).toBe(410);
    expect(((await spent.json()) as { code: string }).code).toBe('invitation_invalid');
  });
});
