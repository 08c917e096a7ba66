// "New session" for a sign workflow, in real Chromium (issue 29): the panel shows one file field per document
// of the newest published revision's sign steps; creating without a file names the missing field (outlined, a
// sentence, the code small) and creates nothing; with the files it sends the GraphQL multipart request the
// server takes, and the session holds exactly those documents (the originals on the session's detail). axe
// finds nothing serious; screens at 390 px and 1280 px.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentEntity } from '../../server/src/modules/document/document.entity';
import { checkScreen } from '../support/axe';
import { type SignedInDashboard, signedInDashboard } from '../support/dashboard';
import { setUpSignWorkflow } from '../support/sign-workflow';
import { minimalPdf } from '../support/workflows';

const here = path.dirname(fileURLToPath(import.meta.url));
const SHOTS = process.env.SHOTS_DIR ?? path.join(here, '__screens__', 'dashboard-sign-session');
const check = (page: Page, name: string) => checkScreen(page, name, SHOTS);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('dashboard: start a sign workflow with its documents', () => {
  let d: SignedInDashboard;
  let page: Page;

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    d = await signedInDashboard({ label: 'dash-sign-session-e2e', business: 'Contracts GmbH' });
    page = d.page;
    await setUpSignWorkflow(d.api, {
      identifyBefore: ['given_name', 'family_name'],
      documents: 2,
      webhookUrl: 'http://127.0.0.1:9/hooks',
      name: 'Loan contract',
      apiOnly: false,
    });
  }, 120_000);

  afterAll(async () => {
    await d?.stop();
  });

  it('shows a file field per document, names a missing one, and uploads both', async () => {
    await page.goto(`${d.t.baseUrl}/dashboard/sessions`);
    const picker = page.getByLabel('Create a session of');
    await picker.waitFor();
    await picker.selectOption({ label: 'Loan contract' });
    const first = page.getByLabel('Document 1 of 2 (PDF)');
    const second = page.getByLabel('Document 2 of 2 (PDF)');
    await first.waitFor();
    await second.waitFor();
    await expect(page.getByText('This workflow signs 2 documents').isVisible()).resolves.toBe(true);

    // one file only: refused in words, the missing field outlined, no session made
    const contract = minimalPdf('Loan contract');
    const annex = minimalPdf('Annex: repayment plan');
    await first.setInputFiles({
      name: 'contract.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from(contract),
    });
    await page.getByRole('button', { name: 'Create session' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('choose a PDF for each document field');
    expect(await alert.textContent()).toContain('documents_required');
    expect(await second.getAttribute('aria-invalid')).toBe('true');
    expect(await first.getAttribute('aria-invalid')).toBeNull();
    expect((await d.api.gql('{ sessions { nodes { id } } }')).data?.sessions.nodes).toEqual([]);
    await check(page, 'sign-session-missing-file');

    await second.setInputFiles({
      name: 'annex.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from(annex),
    });
    await page.getByRole('button', { name: 'Create session' }).click();
    const link = page.getByLabel(/Link for the person/);
    await link.waitFor({ timeout: 8000 }).catch(async (e) => {
      throw new Error(`${e}: ${await page.locator('.d-new-session').textContent()}`);
    });
    const url = await link.inputValue();
    const id = url.split('/s/')[1] as string;
    expect(id).toMatch(/^sess_/);
    // the session holds exactly the two files, in the order of the fields
    const docs = await d.t.svc.ds
      .getRepository(DocumentEntity)
      .find({ where: { sessionId: id }, order: { position: 'ASC' } });
    expect(docs.map((x) => [x.position, x.sha256, x.contentType])).toEqual([
      [0, sha256(contract), 'application/pdf'],
      [1, sha256(annex), 'application/pdf'],
    ]);
    await check(page, 'sign-session-created');
  });
});
