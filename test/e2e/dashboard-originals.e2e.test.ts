// The session detail's signed originals in real Chromium (issue 20): a signed-in owner opens a session whose
// sign step completed with the reference wallet, sees a download link next to each document, and the
// download yields the exact bytes of the original under its own filename. axe-core finds nothing serious or
// critical; the screen is captured at 390 px and 1280 px.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScreen } from '../support/axe';
import { type SignedInDashboard, signedInDashboard } from '../support/dashboard';
import { createSignSession, pdfPart, setUpSignWorkflow, textPart } from '../support/sign-workflow';
import { SignerClient, shareWithReferenceWallet } from '../support/signer';
import { WebhookReceiver } from '../support/webhook-receiver';
import { minimalPdf } from '../support/workflows';

const here = path.dirname(fileURLToPath(import.meta.url));
const SHOTS = process.env.SHOTS_DIR ?? path.join(here, '__screens__', 'dashboard-originals');
const sha256Hex = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

describe('signed originals on the dashboard session detail', () => {
  let dash: SignedInDashboard | undefined;
  let page: Page;
  let sessionId: string;
  const receiver = new WebhookReceiver();
  const contract = minimalPdf('Werkvertrag 2026-17');
  const annex = 'Leistungsbeschreibung, Anlage 1\n';

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    await receiver.start();
    dash = await signedInDashboard({
      label: 'dash-originals-e2e',
      business: 'Originale GmbH',
      context: { acceptDownloads: true },
    });
    page = dash.page;
    const { workflowId } = await setUpSignWorkflow(dash.api, {
      documents: 2,
      webhookUrl: receiver.url,
      name: 'Contract signing',
    });
    const created = await createSignSession(dash.api, workflowId, [
      pdfPart('Werkvertrag.pdf', contract),
      textPart('Anlage 1.txt', annex),
    ]);
    expect(created.status).toBe(201);
    sessionId = created.body.id;
    const signer = new SignerClient(dash.t.baseUrl, sessionId);
    expect((await signer.start()).status).toBe(200);
    expect((await shareWithReferenceWallet(dash.t.svc, signer)).status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await dash?.stop();
    await receiver.stop();
  });

  it('links each document to its signed original and downloads the exact bytes', async () => {
    await page.goto(`${dash?.t.baseUrl}/dashboard/sessions/${sessionId}`);
    const card = page.getByTestId('step-result-0');
    const links = card.getByRole('link', { name: /Download the signed original/ });
    await links.nth(1).waitFor();
    expect(await links.allTextContents()).toEqual([
      'Download the signed original (Werkvertrag.pdf)',
      'Download the signed original (Anlage 1.txt)',
    ]);
    await checkScreen(page, 'session-originals', SHOTS);

    for (const [i, name, bytes] of [
      [0, 'Werkvertrag.pdf', contract],
      [1, 'Anlage 1.txt', annex],
    ] as const) {
      const [download] = await Promise.all([page.waitForEvent('download'), links.nth(i).click()]);
      expect(download.suggestedFilename()).toBe(name);
      const file = await download.path();
      expect(sha256Hex(fs.readFileSync(file))).toBe(sha256Hex(bytes));
    }
  });
});
