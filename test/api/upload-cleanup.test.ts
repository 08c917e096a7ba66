// Cleanup of transient uploads as an operator observes it on disk and a signer over HTTP: documents of sign
// steps that never completed are removed after their session ends, while a content-addressed blob shared with
// completed evidence or a live session stays, and goes only when nothing references it any more.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { DocumentEntity } from '../../server/src/modules/document/document.entity';
import { Api, createBusiness, startTestService, type TestService } from '../support/harness';
import { SignerBrowser } from '../support/receipts';
import { setUpSignWorkflow } from '../support/sign-workflow';
import { shareWithReferenceWallet } from '../support/signer';
import { createMultipart, minimalPdf } from '../support/workflows';

const sha256Hex = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

describe('cleanup of transient uploads', () => {
  const clock = new ManualClock(Date.parse('2026-11-23T09:00:00.000Z'));
  let t: TestService;
  let a: Api;
  let b: Api;
  let signA: string;
  let signB: string;

  beforeAll(async () => {
    t = await startTestService({ label: 'cleanup', clock, workers: false });
    a = new Api(t.baseUrl, (await createBusiness(t, 'Business A')).apiKey);
    b = new Api(t.baseUrl, (await createBusiness(t, 'Business B')).apiKey);
    ({ workflowId: signA } = await setUpSignWorkflow(a, { webhookUrl: 'http://127.0.0.1:9/hook' }));
    ({ workflowId: signB } = await setUpSignWorkflow(b, { webhookUrl: 'http://127.0.0.1:9/hook' }));
  });
  afterAll(async () => {
    await t?.stop();
  });

  const blobFile = (sha: string) =>
    path.join(t.svc.config.dataDir, 'blobs', sha.slice(0, 2), sha.slice(2, 4), sha);
  const docRows = (sessionId: string) => t.svc.ds.getRepository(DocumentEntity).countBy({ sessionId });
  const create = async (api: Api, wf: string, bytes: Uint8Array, expiresIn: number) => {
    const res = await createMultipart(api, { workflow_id: wf, expires_in: String(expiresIn) }, [
      { filename: 'contract.pdf', type: 'application/pdf', bytes },
    ]);
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  it('keeps a blob shared with completed evidence and removes the expired session’s upload', async () => {
    const shared = minimalPdf('Shared contract');
    const sha = sha256Hex(shared);
    const completing = await create(a, signA, shared, 3600);
    const expiring = await create(b, signB, shared, 600); // another business, same bytes
    const signer = new SignerBrowser(t.baseUrl, completing);
    await signer.start();
    expect((await shareWithReferenceWallet(t.svc, signer.client)).status).toBe(200);

    clock.advance(11 * 60_000);
    expect((await b.rest('GET', `/v1/sessions/${expiring}`)).body.status).toBe('expired');
    expect(await t.svc.cleanup.pass()).toEqual({ documents: 1, blobs: 0 });
    expect(await docRows(expiring)).toBe(0);
    expect(await docRows(completing)).toBe(1);
    expect(fs.existsSync(blobFile(sha))).toBe(true);
    // the completed evidence still downloads, exact bytes
    const original = await signer.get(`/t/sessions/${completing}/originals/0`);
    expect(original.status).toBe(200);
    expect(sha256Hex(original.bytes)).toBe(sha);
    // a second pass finds nothing
    expect(await t.svc.cleanup.pass()).toEqual({ documents: 0, blobs: 0 });
  });

  it('keeps a blob while a live session references it, and removes it when that session ends too', async () => {
    const bytes = minimalPdf('Only transient');
    const sha = sha256Hex(bytes);
    const first = await create(a, signA, bytes, 600);
    const live = await create(b, signB, bytes, 3600);
    clock.advance(11 * 60_000);
    await t.svc.sessions.sweepOverdue();
    expect(await t.svc.cleanup.pass()).toEqual({ documents: 1, blobs: 0 });
    expect(await docRows(first)).toBe(0);
    expect(fs.existsSync(blobFile(sha))).toBe(true);

    expect((await b.rest('POST', `/v1/sessions/${live}/stop`)).body.status).toBe('stopped');
    expect(await t.svc.cleanup.pass()).toEqual({ documents: 1, blobs: 1 });
    expect(fs.existsSync(blobFile(sha))).toBe(false);
  });

  it('works in bounded batches', async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await create(a, signA, minimalPdf(`Batch ${i}`), 600));
    clock.advance(11 * 60_000);
    await t.svc.sessions.sweepOverdue();
    expect(await t.svc.cleanup.pass(2)).toEqual({ documents: 2, blobs: 2 });
    expect(await t.svc.cleanup.pass(2)).toEqual({ documents: 1, blobs: 1 });
    for (const id of ids) expect(await docRows(id)).toBe(0);
  });
});
