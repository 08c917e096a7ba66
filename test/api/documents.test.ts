// POST /v1/sessions as multipart/form-data for a workflow with a sign step, as a business integrates it: the
// exact bytes are stored content-addressed (SHA-256) and write-once, and every bad upload is refused with a
// stable code and nothing stored (no session row, no document row, no blob file).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentEntity } from '../../server/src/modules/document/document.entity';
import { SessionEntity } from '../../server/src/modules/session/session.entity';
import { Api, createBusiness, startTestService, type TestService } from '../support/harness';
import { blobFiles, setUpSignWorkflow } from '../support/sign-workflow';
import { createMultipart, type FilePart, minimalPdf, publishWorkflow } from '../support/workflows';

const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const MiB = 1024 * 1024;

describe('sign documents: multipart session creation', () => {
  let t: TestService;
  let api: Api;
  let businessId: string;
  let signWf: string;
  let sign2Wf: string;
  let identifyWf: string;
  let blobRoot: string;

  beforeAll(async () => {
    t = await startTestService({ label: 'documents', workers: false });
    const biz = await createBusiness(t);
    businessId = biz.businessId;
    api = new Api(t.baseUrl, biz.apiKey);
    ({ workflowId: signWf } = await setUpSignWorkflow(api, { webhookUrl: 'http://127.0.0.1:9/hooks' }));
    ({ workflowId: sign2Wf } = await setUpSignWorkflow(api, { documents: 2 }));
    ({ workflowId: identifyWf } = await publishWorkflow(api, [
      { primitive: 'identify', claims: ['given_name'] },
    ]));
    blobRoot = path.join(t.svc.config.dataDir, 'blobs');
  });
  afterAll(async () => t?.stop());

  const pdf = (filename = 'contract.pdf', text = 'Contract'): FilePart => ({
    filename,
    type: 'application/pdf',
    bytes: minimalPdf(text),
  });

  async function expectCreateLeftNothing(before: { sessions: number; docs: number; blobs: number }) {
    expect(await t.svc.ds.getRepository(SessionEntity).countBy({ businessId })).toBe(before.sessions);
    expect(await t.svc.ds.getRepository(DocumentEntity).countBy({ businessId })).toBe(before.docs);
    expect(blobFiles(blobRoot).length).toBe(before.blobs);
  }
  const snapshot = async () => ({
    sessions: await t.svc.ds.getRepository(SessionEntity).countBy({ businessId }),
    docs: await t.svc.ds.getRepository(DocumentEntity).countBy({ businessId }),
    blobs: blobFiles(blobRoot).length,
  });

  it('stores the exact bytes content-addressed, write-once, and links them to the session', async () => {
    const bytes = minimalPdf('Lease agreement 2025');
    const res = await createMultipart(
      api,
      { workflow_id: signWf, metadata: JSON.stringify({ ref: 'L-7' }), expires_in: '600' },
      [{ filename: 'Lease agreement ü.pdf', type: 'application/pdf', bytes }],
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ workflow_id: signWf, status: 'created' });
    const read = await api.rest('GET', `/v1/sessions/${res.body.id}`);
    expect(read.body.metadata).toEqual({ ref: 'L-7' });
    expect(Date.parse(read.body.expires) - Date.parse(read.body.created)).toBe(600_000);

    const docs = await t.svc.ds.getRepository(DocumentEntity).findBy({ sessionId: res.body.id });
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({
      label: 'Lease agreement ü.pdf',
      sha256: sha256(bytes),
      size: bytes.length,
      contentType: 'application/pdf',
      stage: 0,
      position: 0,
    });
    const file = path.join(blobRoot, sha256(bytes).slice(0, 2), sha256(bytes).slice(2, 4), sha256(bytes));
    expect(new Uint8Array(fs.readFileSync(file))).toEqual(bytes);
    expect(fs.statSync(file).mode & 0o222).toBe(0); // read-only on disk

    // The same bytes in another session share the blob, which is not rewritten.
    const mtime = fs.statSync(file).mtimeMs;
    const again = await createMultipart(api, { workflow_id: signWf }, [
      { filename: 'copy.pdf', type: 'application/pdf', bytes },
    ]);
    expect(again.status).toBe(201);
    expect(fs.statSync(file).mtimeMs).toBe(mtime);
    expect(blobFiles(blobRoot).filter((f) => f.endsWith(sha256(bytes)))).toHaveLength(1);
  });

  it('assigns several documents in upload order and accepts pdf, text, png and jpeg', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    const res = await createMultipart(api, { workflow_id: sign2Wf }, [
      { filename: 'terms.txt', type: 'text/plain', bytes: 'Plain terms, UTF-8: é' },
      { filename: 'scan.png', type: 'image/png', bytes: png },
    ]);
    expect(res.status).toBe(201);
    const docs = await t.svc.ds
      .getRepository(DocumentEntity)
      .find({ where: { sessionId: res.body.id }, order: { position: 'ASC' } });
    expect(docs.map((d) => [d.position, d.label, d.contentType])).toEqual([
      [0, 'terms.txt', 'text/plain'],
      [1, 'scan.png', 'image/png'],
    ]);
    const jpeg = await createMultipart(api, { workflow_id: signWf }, [
      { filename: 'photo.jpg', type: 'image/jpeg', bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 1]) },
    ]);
    expect(jpeg.status).toBe(201);
  });

  it('replays an idempotent multipart create without storing the documents again', async () => {
    const key = `doc-idem-${Date.now()}`;
    const first = await createMultipart(api, { workflow_id: signWf }, [pdf('a.pdf', 'idem')], {
      'Idempotency-Key': key,
    });
    expect(first.status).toBe(201);
    const before = await snapshot();
    const repeat = await createMultipart(api, { workflow_id: signWf }, [pdf('b.pdf', 'other bytes')], {
      'Idempotency-Key': key,
    });
    expect(repeat.status).toBe(201);
    expect(repeat.body.id).toBe(first.body.id);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    await expectCreateLeftNothing(before);
  });

  const tooBig = new Uint8Array(10 * MiB + 1);
  tooBig.set(new TextEncoder().encode('%PDF-1.4\n'));
  const big = (n: number) => {
    const b = new Uint8Array(Math.floor(8.5 * MiB));
    b.set(new TextEncoder().encode(`%PDF-1.4\n${n}`));
    return { filename: `big${n}.pdf`, type: 'application/pdf', bytes: b };
  };

  const refusals: {
    name: string;
    wf: () => string;
    fields?: Record<string, string>;
    files: () => FilePart[];
    status: number;
    code: string;
    param?: string;
  }[] = [
    {
      name: 'a sign workflow without files',
      wf: () => signWf,
      files: () => [],
      status: 400,
      code: 'documents_required',
      param: 'file',
    },
    {
      name: 'files for a workflow without a sign step',
      wf: () => identifyWf,
      files: () => [pdf()],
      status: 400,
      code: 'validation_failed',
      param: 'file',
    },
    {
      name: 'more files than the sign step takes',
      wf: () => signWf,
      files: () => [pdf('a.pdf', 'a'), pdf('b.pdf', 'b')],
      status: 400,
      code: 'validation_failed',
      param: 'file',
    },
    {
      name: 'fewer files than the sign step takes',
      wf: () => sign2Wf,
      files: () => [pdf()],
      status: 400,
      code: 'validation_failed',
      param: 'file',
    },
    {
      name: 'a disallowed content type',
      wf: () => signWf,
      files: () => [{ filename: 'x.zip', type: 'application/zip', bytes: 'PK\u0003\u0004' }],
      status: 415,
      code: 'unsupported_media_type',
      param: 'file',
    },
    {
      name: 'bytes that are not of the declared type',
      wf: () => signWf,
      files: () => [{ filename: 'fake.pdf', type: 'application/pdf', bytes: '<html>not a pdf</html>' }],
      status: 415,
      code: 'unsupported_media_type',
      param: 'file',
    },
    {
      name: 'an empty file',
      wf: () => signWf,
      files: () => [{ filename: 'empty.txt', type: 'text/plain', bytes: '' }],
      status: 400,
      code: 'validation_failed',
      param: 'file',
    },
    {
      name: 'more than 10 files',
      wf: () => signWf,
      files: () => Array.from({ length: 11 }, (_, i) => pdf(`f${i}.pdf`, String(i))),
      status: 400,
      code: 'validation_failed',
      param: 'file',
    },
    {
      name: 'a file over 10 MiB',
      wf: () => signWf,
      files: () => [{ filename: 'huge.pdf', type: 'application/pdf', bytes: tooBig }],
      status: 413,
      code: 'payload_too_large',
      param: 'file',
    },
    {
      name: 'files over 25 MiB together',
      wf: () => signWf,
      files: () => [big(1), big(2), big(3)],
      status: 413,
      code: 'payload_too_large',
      param: 'file',
    },
    {
      name: 'metadata that is not JSON',
      wf: () => signWf,
      fields: { metadata: '{oops' },
      files: () => [pdf()],
      status: 400,
      code: 'validation_failed',
      param: 'metadata',
    },
    {
      name: 'metadata that is not a JSON object',
      wf: () => signWf,
      fields: { metadata: '[1,2]' },
      files: () => [pdf()],
      status: 400,
      code: 'validation_failed',
      param: 'metadata',
    },
    {
      name: 'metadata over 16 KiB',
      wf: () => signWf,
      fields: { metadata: JSON.stringify({ note: 'x'.repeat(17 * 1024) }) },
      files: () => [pdf()],
      status: 400,
      code: 'validation_failed',
      param: 'metadata',
    },
    {
      name: 'an expires_in that is not a number',
      wf: () => signWf,
      fields: { expires_in: 'soon' },
      files: () => [pdf()],
      status: 400,
      code: 'validation_failed',
      param: 'expires_in',
    },
    {
      name: 'an unknown form field',
      wf: () => signWf,
      fields: { callback_url: 'https://x.example' },
      files: () => [pdf()],
      status: 400,
      code: 'validation_failed',
      param: 'callback_url',
    },
    {
      name: 'a file part under another field name',
      wf: () => signWf,
      files: () => [{ ...pdf(), name: 'document' }],
      status: 400,
      code: 'validation_failed',
      param: 'document',
    },
  ];

  it.each(refusals)('refuses $name with $code and stores nothing', async (c) => {
    const before = await snapshot();
    const res = await createMultipart(api, { workflow_id: c.wf(), ...c.fields }, c.files());
    expect(res.status).toBe(c.status);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(res.body.code).toBe(c.code);
    if (c.param) expect(res.body.param).toBe(c.param);
    expect(res.body.detail).toEqual(expect.any(String));
    await expectCreateLeftNothing(before);
  });

  it('refuses a JSON create for a sign workflow with documents_required, and stores nothing', async () => {
    const before = await snapshot();
    const res = await api.rest('POST', '/v1/sessions', { workflow_id: signWf });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('documents_required');
    expect(res.body.detail).toMatch(/multipart\/form-data/);
    await expectCreateLeftNothing(before);
  });

  it('refuses other content types with 415', async () => {
    const res = await fetch(`${t.baseUrl}/v1/sessions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${api.apiKey}`, 'Content-Type': 'text/plain' },
      body: `workflow_id=${signWf}`,
    });
    expect(res.status).toBe(415);
    expect((await res.json()).code).toBe('unsupported_media_type');
  });
});
