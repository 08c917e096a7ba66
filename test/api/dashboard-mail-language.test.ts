// The dashboard's sign-in email in the asker's language (issue 29), black-box over real HTTP and a real SMTP
// server: the first of the request's Accept-Language tags we have (de-AT → German, fr → French), else English
// (unchanged text). The invitation email stays English and free of any business name (spec §1): its recipient
// has no account yet, so no language of theirs is known.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authPost, linkToken, runOperator } from '../support/dashboard';
import { startTestService, type TestService } from '../support/harness';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp';

describe('dashboard emails: language', () => {
  let t: TestService;
  let smtp: TestSmtpServer;
  const email = 'owner@sprachen.test';

  const mailTo = (after: number) =>
    smtp.waitFor((m) => JSON.stringify(m.to ?? '').includes(email) && smtp.messages.indexOf(m) >= after);
  const askLink = async (acceptLanguage?: string) => {
    const before = smtp.messages.length;
    const res = await fetch(`${t.baseUrl}/auth/email-link`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(acceptLanguage ? { 'accept-language': acceptLanguage } : {}),
      },
      body: JSON.stringify({ email }),
    });
    expect(res.status).toBe(202);
    return mailTo(before);
  };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestService({ label: 'dash-mail-lang', smtpUrl: smtp.url, workers: false });
  });
  afterAll(async () => {
    await t?.stop();
    await smtp?.stop();
  });

  it('writes the sign-in link in German or French when the request asks, else in English', async () => {
    const env = {
      DATABASE_URL: t.db.url,
      DATA_DIR: t.svc.config.dataDir,
      BASE_URL: t.baseUrl,
      SMTP_URL: smtp.url,
    };
    const out = await runOperator(
      ['create-business', '--name', 'Sprachen GmbH', '--owner-email', email, '--operator', 'ops-test'],
      env,
    );
    expect(out.code).toBe(0);
    const invitation = await mailTo(0);
    expect(invitation.subject).toBe('Your dashboard invitation');
    expect(`${invitation.subject} ${invitation.text}`).not.toMatch(/sprachen/i);
    const accepted = await authPost(t.baseUrl, '/auth/invitations/accept', {
      token: linkToken(invitation.text),
    });
    expect(accepted.status).toBe(201);

    const de = await askLink('de-AT,de;q=0.9,en;q=0.5');
    expect(de.subject).toBe('Ihr Anmeldelink für Sprachen GmbH');
    expect(de.text).toMatch(/^Öffnen Sie diesen Link innerhalb von 15 Minuten/);
    expect(linkToken(de.text)).toMatch(/^[\w-]{40,}$/);

    const fr = await askLink('fr-FR');
    expect(fr.subject).toBe('Votre lien de connexion pour Sprachen GmbH');
    expect(fr.text).toContain('tableau de bord de Sprachen GmbH\u00a0:');

    const en = await askLink('es-ES,it');
    expect(en.subject).toBe('Your sign-in link for Sprachen GmbH');
    expect((await askLink()).text).toMatch(
      /^Open this link within 15 minutes to sign in to the dashboard of Sprachen GmbH:/,
    );
  });
});
