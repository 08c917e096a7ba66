// The dashboard in the business's language, in real Chromium (issue 29): the language comes from the browser
// (de-DE → German) and the switch overrides it for this browser (kept after a reload). Translated: the shell
// (brand, environment badge and switch, navigation, skip link, menu), the sign-in and invitation screens, and
// the Start, Sessions (with its New session card) and session detail screens, API keys, team, account, the
// route catalog, the workflow editor, Webhooks (after a test event), Branding and Relying party (see ADR 0052's
// amendments for what is still English). axe finds nothing serious; 390 and 1280 px, no sideways scroll.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScreen } from '../support/axe';
import { type SignedInDashboard, signedInDashboard } from '../support/dashboard';
import { SignerClient, shareWithReferenceWallet } from '../support/signer';
import { WebhookReceiver } from '../support/webhook-receiver';
import { publishWorkflow } from '../support/workflows';

const here = path.dirname(fileURLToPath(import.meta.url));
const SHOTS = process.env.SHOTS_DIR ?? path.join(here, '__screens__', 'dashboard-i18n');

describe('dashboard languages', () => {
  let d: SignedInDashboard;
  let page: Page;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    await receiver.start();
    d = await signedInDashboard({
      label: 'dash-i18n-e2e',
      business: 'Sprachen GmbH',
      context: { locale: 'de-DE' },
    });
    page = d.page;
  }, 120_000);
  afterAll(async () => {
    await d?.stop();
    await receiver.stop();
  });

  it('signs in in the browser’s language and switches to French', async () => {
    const signedOut = await d.browser.newContext({ locale: 'de-DE', viewport: { width: 1280, height: 900 } });
    const p = await signedOut.newPage();
    await p.goto(`${d.t.baseUrl}/dashboard/sign-in`);
    await p.getByRole('heading', { name: 'Beim Dashboard anmelden' }).waitFor();
    expect(await p.evaluate(() => document.documentElement.lang)).toBe('de');
    expect(await p.getByText(/^Noch kein Konto\?/).count()).toBe(1);
    await checkScreen(p, 'sign-in-de', SHOTS);
    await p.getByLabel('Sprache').selectOption('fr');
    await p.getByRole('heading', { name: 'Se connecter au tableau de bord' }).waitFor();
    await p.reload();
    await p.getByRole('heading', { name: 'Se connecter au tableau de bord' }).waitFor();
    expect(await p.evaluate(() => document.documentElement.lang)).toBe('fr');
    await checkScreen(p, 'sign-in-fr', SHOTS);
    await signedOut.close();
  });

  it('shows the shell and navigation in German, then French after the switch', async () => {
    await page.goto(`${d.t.baseUrl}/dashboard/sessions`);
    await page.getByRole('heading', { level: 1, name: 'Sitzungen' }).waitFor();
    expect(await page.getByTestId('environment-badge').textContent()).toBe('SANDBOX: Testdaten');
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    expect(await nav.getByRole('link', { name: 'API-Schlüssel' }).count()).toBe(1);
    await checkScreen(page, 'shell-de', SHOTS);
    await page.getByLabel('Sprache').selectOption('fr');
    await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
    const navFr = page.getByRole('navigation', { name: 'Tableau de bord' });
    expect(await navFr.getByRole('link', { name: 'Clés d’API' }).count()).toBe(1);
    expect(await page.getByTestId('environment-badge').textContent()).toBe(
      'BAC À SABLE\u00a0: données de test',
    );
    await checkScreen(page, 'shell-fr', SHOTS);
  });

  it('shows Start, Sessions and a session waiting for a decision in German and French', async () => {
    const { workflowId } = await publishWorkflow(
      d.api,
      [{ primitive: 'identify', claims: ['given_name', 'family_name'], gateAfter: true }],
      receiver.url,
      'Kontoeröffnung',
    );
    const created = await d.api.rest('POST', '/v1/sessions', {
      workflow_id: workflowId,
      metadata: { order: 'A-7' },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const signer = new SignerClient(d.t.baseUrl, id);
    expect((await signer.start()).status).toBe(200);
    expect((await shareWithReferenceWallet(d.t.svc, signer)).status).toBe(200);

    const screens = async (lang: 'de' | 'fr', w: Record<string, string>) => {
      await page.goto(`${d.t.baseUrl}/dashboard/start`);
      await page.locator('#dashboard-language').selectOption(lang);
      await page.getByRole('heading', { name: w.next }).waitFor();
      expect(await page.getByTestId('start-environment').textContent()).toBe(w.env);
      expect(await page.getByTestId('next-workflow').getByRole('heading').textContent()).toBe(w.wfDone);
      await checkScreen(page, `start-${lang}`, SHOTS);

      await page.goto(`${d.t.baseUrl}/dashboard/sessions`);
      await page.getByLabel(w.anyStatusLabel).waitFor();
      await page.getByRole('heading', { name: w.newSession }).waitFor();
      const row = page.getByTestId('session-row').first();
      expect(await row.getByText(w.waiting, { exact: true }).count()).toBe(1);
      expect(await row.getByTestId('session-row-reference').textContent()).toBe(w.reference);
      await checkScreen(page, `sessions-${lang}`, SHOTS);

      await page.goto(`${d.t.baseUrl}/dashboard/sessions/${id}`);
      await page.getByRole('heading', { name: w.waiting }).waitFor();
      expect(await page.getByTestId('session-status').textContent()).toBe(w.waiting);
      expect(await page.getByTestId('continue-session').textContent()).toBe(w.continue);
      expect(await page.getByTestId('timeline').getByText(w.created, { exact: true }).count()).toBe(1);
      await checkScreen(page, `session-detail-${lang}`, SHOTS);
    };
    await screens('de', {
      next: 'Die nächsten Schritte',
      env: 'Sandbox (Testdaten)',
      wfDone: 'Ein veröffentlichter Workflow: erledigt',
      anyStatusLabel: 'Status',
      newSession: 'Neue Sitzung',
      waiting: 'Wartet auf Ihre Entscheidung',
      reference: 'Ihre Referenz: order: A-7',
      continue: 'Sitzung fortsetzen',
      created: 'Sitzung angelegt',
    });
    await screens('fr', {
      next: 'Prochaines étapes',
      env: 'dans le bac à sable (données de test)',
      wfDone: 'Un parcours publié\u00a0: fait',
      anyStatusLabel: 'Statut',
      newSession: 'Nouvelle session',
      waiting: 'En attente de votre décision',
      reference: 'Votre référence\u00a0: order: A-7',
      continue: 'Poursuivre la session',
      created: 'Session créée',
    });
  }, 180_000);

  it('shows API keys, team, account and the route catalog in German and French', async () => {
    const words = {
      de: {
        keys: 'Sandbox-Schlüssel erstellen',
        active: 'Aktiv',
        team: 'Jemanden einladen',
        owner: 'Inhaber/in',
        account: 'Passkey hinzufügen',
        catalog: 'Nicht verfügbar|Verfügbar',
      },
      fr: {
        keys: 'Créer une clé de bac à sable',
        active: 'Active',
        team: 'Inviter quelqu’un',
        owner: 'propriétaire',
        account: 'Ajouter une clé d’accès',
        catalog: 'Non disponible|Disponible',
      },
    } as const;
    for (const lang of ['de', 'fr'] as const) {
      const w = words[lang];
      await page.goto(`${d.t.baseUrl}/dashboard/api-keys`);
      await page.locator('#dashboard-language').selectOption(lang);
      await page.getByRole('button', { name: w.keys }).waitFor();
      expect(await page.getByTestId('key-status').first().textContent()).toBe(w.active);
      await checkScreen(page, `api-keys-${lang}`, SHOTS);

      await page.goto(`${d.t.baseUrl}/dashboard/team`);
      await page.getByRole('heading', { name: w.team }).waitFor();
      expect(await page.getByRole('cell', { name: w.owner, exact: true }).count()).toBeGreaterThan(0);
      await checkScreen(page, `team-${lang}`, SHOTS);

      await page.goto(`${d.t.baseUrl}/dashboard/account`);
      await page.getByRole('button', { name: w.account }).waitFor();
      await checkScreen(page, `account-${lang}`, SHOTS);

      await page.goto(`${d.t.baseUrl}/dashboard/catalog`);
      await page
        .getByRole('cell', { name: new RegExp(`^(${w.catalog})$`) })
        .first()
        .waitFor();
      await checkScreen(page, `catalog-${lang}`, SHOTS);
    }
  }, 180_000);
  it('shows the workflow editor, Webhooks, Branding and Relying party in German and French', async () => {
    const { workflowId } = await publishWorkflow(
      d.api,
      [
        {
          primitive: 'identify',
          claims: ['given_name', 'family_name', 'nationality'],
          conditions: [
            {
              claim: 'nationality',
              operator: 'not_in',
              values: ['DE', 'AT'],
              outcome: 'fail',
              failureReason: 'nationality_not_accepted',
            },
          ],
        },
        { primitive: 'age_verify', threshold: 18, gateAfter: true },
        { primitive: 'attestation', terms: 'Ich bestätige die Bedingungen.' },
      ],
      receiver.url,
      'Mietvertrag',
    );
    const words = {
      de: {
        workflows: 'Workflows',
        create: 'Sandbox-Workflow anlegen',
        draft: 'Schritte im Entwurf',
        step1: 'Schritt 1: Identifizierung',
        step2: 'Schritt 2: Altersprüfung',
        conditions: 'Bedingungen an das Ergebnis',
        reason: 'Staatsangehörigkeit nicht akzeptiert',
        save: 'Entwurf speichern',
        publish: 'Revision veröffentlichen',
        revision: /^Revision 1, veröffentlicht am /,
        revisionLine:
          'Wenn Staatsangehörigkeit ist keiner von DE, AT: als gescheitert beenden (nationality_not_accepted)',
        webhooks: 'Webhook-Endpunkt',
        sendTest: 'Testereignis senden',
        queued: /^Testereignis als Zustellung .+ eingereiht/,
        deliveries: 'Zustellungen',
        refresh: 'Protokoll aktualisieren',
        delivered: 'zugestellt',
        rotate: 'Signaturgeheimnis wechseln',
        stored: 'Ich habe es gespeichert',
        branding: 'Erscheinungsbild',
        preview: 'Vorschau des Seitenkopfs für Unterzeichnende',
        accent: 'Akzentfarbe (#rrggbb; leer: die Voreinstellung)',
        verdict: 'Kontrast zu weißer Schaltflächenschrift: 9,',
        passes: 'Ausreichend (WCAG AA verlangt 4,5:1).',
        rp: 'Vertrauende Partei',
        legal: 'Rechtlicher Name',
        readers: 'Leserzertifikate',
        save2: 'Speichern',
        privacy: 'URL der Datenschutzerklärung',
        privacyError:
          'Geben Sie die vollständige Adresse Ihrer Datenschutzerklärung ein, beginnend mit https:// und ohne Benutzernamen oder Passwort darin.',
      },
      fr: {
        workflows: 'Parcours',
        create: 'Créer un parcours de bac à sable',
        draft: 'Étapes du brouillon',
        step1: 'Étape 1\u00a0: Identification',
        step2: 'Étape 2\u00a0: Contrôle d’âge',
        conditions: 'Conditions sur le résultat',
        reason: 'Nationalité non acceptée',
        save: 'Enregistrer le brouillon',
        publish: 'Publier une révision',
        revision: /^Révision 1, publiée le /,
        revisionLine:
          'Si nationalité ne fait pas partie de DE, AT\u00a0: terminer en échec (nationality_not_accepted)',
        webhooks: 'Point de terminaison webhook',
        sendTest: 'Envoyer un événement de test',
        queued: /^Événement de test mis en file comme envoi .+\u00a0;/,
        deliveries: 'Envois',
        refresh: 'Actualiser le journal',
        delivered: 'livré',
        rotate: 'Renouveler le secret de signature',
        stored: 'Je l’ai enregistré',
        branding: 'Image de marque',
        preview: 'Aperçu de l’en-tête de la page des signataires',
        accent: 'Couleur d’accent (#rrggbb\u00a0; vide\u00a0: celle par défaut)',
        verdict: 'Contraste avec le texte blanc des boutons\u00a0: 9,',
        passes: 'Suffisant (le niveau AA des WCAG demande 4,5:1).',
        rp: 'Partie utilisatrice',
        legal: 'Raison sociale',
        readers: 'Certificats de lecteur',
        save2: 'Enregistrer',
        privacy: 'URL de la politique de confidentialité',
        privacyError:
          'Saisissez l’adresse complète de votre politique de confidentialité, commençant par https:// et sans nom d’utilisateur ni mot de passe.',
      },
    } as const;
    for (const lang of ['de', 'fr'] as const) {
      const w = words[lang];
      await page.goto(`${d.t.baseUrl}/dashboard/workflows`);
      await page.locator('#dashboard-language').selectOption(lang);
      await page.getByRole('heading', { level: 1, name: w.workflows }).waitFor();
      await page.getByRole('button', { name: w.create }).waitFor();
      await checkScreen(page, `workflows-${lang}`, SHOTS);

      await page.goto(`${d.t.baseUrl}/dashboard/workflows/${workflowId}`);
      await page.getByRole('heading', { name: w.draft }).waitFor();
      expect(await page.getByTestId('step-1').getByRole('heading').textContent()).toBe(w.step1);
      expect(await page.getByTestId('step-2').getByRole('heading').textContent()).toBe(w.step2);
      const conditions = page.getByTestId('conditions-0');
      expect(await conditions.getByRole('group').first().getAttribute('aria-label')).toBeTruthy();
      expect(await conditions.locator('legend').first().textContent()).toBe(w.conditions);
      expect(await conditions.locator('select[id$="-reason"] option:checked').textContent()).toBe(w.reason);
      await page.getByRole('button', { name: w.save }).waitFor();
      await page.getByRole('button', { name: w.publish }).waitFor();
      const revision = page.locator('details.d-revision').first();
      expect(await revision.locator('summary').textContent()).toMatch(w.revision);
      await revision.locator('summary').click();
      expect(await revision.locator('.d-condition-list li').first().textContent()).toBe(w.revisionLine);
      await checkScreen(page, `workflow-editor-${lang}`, SHOTS);

      await page.goto(`${d.t.baseUrl}/dashboard/webhooks`);
      await page.getByRole('heading', { level: 1, name: w.webhooks }).waitFor();
      await page.getByRole('button', { name: w.sendTest }).click();
      await page.getByRole('status').filter({ hasText: w.queued }).waitFor();
      await page.getByRole('heading', { name: w.deliveries }).waitFor();
      await page.getByTestId('send-test-event').waitFor();
      // the relay sends it (workers are off in e2e suites); the log shows the attempt, opened
      while ((await d.t.svc.relay.runOnce()) > 0) {}
      await page.getByRole('button', { name: w.refresh }).click();
      await page.getByRole('cell', { name: w.delivered, exact: true }).first().waitFor();
      await page.locator('button.d-disclosure').first().click();
      await page.getByTestId('webhook-attempts').getByRole('table').waitFor();
      // a new signing secret, shown once with its Copy and "stored" buttons in the language
      await page.getByRole('button', { name: w.rotate }).click();
      await page.getByRole('button', { name: w.stored }).waitFor();
      await checkScreen(page, `webhooks-${lang}`, SHOTS);
      await page.getByRole('button', { name: w.stored }).click();

      await page.goto(`${d.t.baseUrl}/dashboard/branding`);
      await page.getByRole('heading', { level: 1, name: w.branding }).waitFor();
      await page.getByRole('heading', { name: w.preview }).waitFor();
      await page.getByLabel(w.accent).fill('#0f5132');
      const verdict = page.getByTestId('contrast-verdict');
      await expect.poll(() => verdict.textContent()).toContain(w.verdict);
      expect(await verdict.textContent()).toContain(w.passes);
      await checkScreen(page, `branding-${lang}`, SHOTS);

      await page.goto(`${d.t.baseUrl}/dashboard/relying-party`);
      await page.getByRole('heading', { level: 1, name: w.rp }).waitFor();
      await page.getByLabel(w.legal).waitFor();
      await page.getByRole('heading', { name: w.readers }).waitFor();
      // a refused field says what to do in the language, on the field
      const privacy = page.getByLabel(w.privacy);
      await privacy.fill('https://user:secret@acme.example/privacy');
      await page.getByRole('button', { name: w.save2, exact: true }).click();
      await page.locator('#rp-privacy-error').waitFor();
      expect(await page.locator('#rp-privacy-error').textContent()).toBe(w.privacyError);
      expect(await privacy.getAttribute('aria-invalid')).toBe('true');
      await checkScreen(page, `relying-party-${lang}`, SHOTS);
      await privacy.fill('');
    }
  }, 300_000);
});
