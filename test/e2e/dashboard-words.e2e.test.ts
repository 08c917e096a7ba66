// A failed session's detail in words, in real Chromium (issue 29): a minor fails an age condition; the facts
// say why in a sentence (the code small beside it), the timeline names the condition and what it did, one
// Share shows one "Wallet asked" however many requests the page prepared, and "Webhook queued" names its
// event; the same in German and French (result card, audit check, timeline). axe finds nothing serious;
// screens at 390 px and 1280 px.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScreen } from '../support/axe';
import { type SignedInDashboard, signedInDashboard } from '../support/dashboard';
import { SignerClient, shareWithReferenceWallet } from '../support/signer';
import { publishWorkflow } from '../support/workflows';

const here = path.dirname(fileURLToPath(import.meta.url));
const SHOTS = process.env.SHOTS_DIR ?? path.join(here, '__screens__', 'dashboard-words');

describe('dashboard: a failed session in words', () => {
  let d: SignedInDashboard;
  let page: Page;
  let sessionId: string;

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    d = await signedInDashboard({ label: 'dash-words-e2e', business: 'Words GmbH' });
    page = d.page;
    const { workflowId } = await publishWorkflow(
      d.api,
      [
        {
          primitive: 'age_verify',
          threshold: 18,
          conditions: [
            {
              claim: 'over',
              operator: 'equals',
              values: ['false'],
              outcome: 'fail',
              failureReason: 'age_requirement_not_met',
            },
          ],
        },
      ],
      'http://127.0.0.1:9/hooks',
      'Age check',
    );
    const created = await d.api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);
    sessionId = created.body.id;
    const signer = new SignerClient(d.t.baseUrl, sessionId);
    expect((await signer.start()).status).toBe(200);
    // the page prepares more than one request for one Share (same device and another device)
    await signer.walletRequest();
    await signer.walletRequest();
    expect((await shareWithReferenceWallet(d.t.svc, signer, 'minor')).status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await d?.stop();
  });

  it('says why it failed, what the condition did, asks once, and which event the webhook carries', async () => {
    const raw = await d.api.gql('query($id: ID!) { sessionTimeline(id: $id) { entries { kind } } }', {
      id: sessionId,
    });
    const kinds = ((raw.data?.sessionTimeline.entries ?? []) as { kind: string }[]).map((e) => e.kind);
    expect(kinds.filter((k) => k === 'wallet_request').length).toBe(3);

    await page.goto(`${d.t.baseUrl}/dashboard/sessions/${sessionId}`);
    const failure = page.getByTestId('session-failure');
    await failure.waitFor();
    expect(await failure.textContent()).toBe(
      'The person is not old enough: the age check of this step was not met. (step 1) age_requirement_not_met',
    );
    const timeline = page.getByTestId('timeline');
    const items = (await timeline.locator('li').allTextContents()).map((x) => x.replace(/^.*? UTC /, ''));
    expect(items.filter((x) => x.startsWith('Wallet asked'))).toEqual(['Wallet asked (step 1)']);
    expect(items).toContain(
      'Condition met: condition 1 of step 1, so the session failed. The person is not old enough: the age check of this step was not met. fail',
    );
    expect(items.some((x) => /^Webhook queued: session\.\w+/.test(x))).toBe(true);
    expect(items.join('\n')).not.toMatch(/condition_matched|^Failure age_requirement/);
    await checkScreen(page, 'session-failed-in-words', SHOTS);
  });

  it('says the same in German and French: failure, result card, audit check and timeline', async () => {
    const expected = {
      de: {
        failure:
          'Die Person ist nicht alt genug: Die Altersprüfung dieses Schritts ist nicht erfüllt. (Schritt 1) age_requirement_not_met',
        card: [
          'Schritt 1: Altersprüfung',
          'Mindestens 18 Jahre alt',
          'Nein',
          'Prüfprotokoll',
          'Nicht abgeschlossen',
        ],
        condition: 'Bedingung 1 von Schritt 1, daher ist die Sitzung fehlgeschlagen.',
        verify: 'Signatur prüfen',
        valid: /^Signatur gültig: signiert mit dem Dienstschlüssel /,
      },
      fr: {
        failure:
          'La personne n’a pas l’âge requis\u00a0: la vérification de l’âge de cette étape n’est pas satisfaite. (étape 1) age_requirement_not_met',
        card: [
          'Étape 1\u00a0: Vérification de l’âge',
          'Au moins 18 ans',
          'Non',
          'Enregistrement d’audit',
          'Non terminée',
        ],
        condition: 'condition 1 de l’étape 1, la session a donc échoué.',
        verify: 'Vérifier la signature',
        valid: /^Signature valide\u00a0: signée par la clé du service /,
      },
    } as const;
    for (const lang of ['de', 'fr'] as const) {
      const w = expected[lang];
      await page.goto(`${d.t.baseUrl}/dashboard/sessions/${sessionId}`);
      await page.locator('#dashboard-language').selectOption(lang);
      const failure = page.getByTestId('session-failure');
      await expect.poll(() => failure.textContent()).toBe(w.failure);
      await page.getByTestId('audit-0').getByRole('heading', { name: w.card[3] }).waitFor();
      const card = (await page.getByTestId('step-result-0').textContent()) as string;
      for (const x of w.card) expect(card, lang).toContain(x);
      expect(card).not.toMatch(/Completed|Age at least|Audit record|Abgeschlossen|Terminée le/);
      await page.getByRole('button', { name: w.verify }).click();
      await expect
        .poll(() => page.getByTestId('audit-verdict-0').textContent(), { timeout: 15_000 })
        .toMatch(w.valid);
      const items = await page.getByTestId('timeline').locator('li').allTextContents();
      expect(
        items.some((x) => x.includes(w.condition)),
        lang,
      ).toBe(true);
      expect(items.join('\n')).not.toMatch(/so the session failed|The person is not old enough/);
      await checkScreen(page, `session-failed-in-words-${lang}`, SHOTS);
    }
    await page.locator('#dashboard-language').selectOption('en');
  });

  it('previews the branding with the business’s real name and workflow, not placeholders', async () => {
    await page.goto(`${d.t.baseUrl}/dashboard/branding`);
    const preview = page.getByTestId('branding-preview');
    await preview.getByText('Words GmbH').waitFor();
    expect(await preview.textContent()).toContain('Age check');
    expect(await preview.textContent()).not.toMatch(/Your business name|Identity check/);
    await checkScreen(page, 'branding-preview-real', SHOTS);
  });
});
