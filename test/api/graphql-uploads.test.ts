// createSession over GraphQL with documents (GraphQL multipart request spec: `operations`, `map`, file parts)
// against POST /v1/sessions as multipart/form-data: a sign session gets the same answer shape and the same
// stored documents (hash, size, type, label, stage, position), and every refusal gives the same code and
// status (`param` "file" over REST is the argument "documents" over GraphQL) and stores nothing: no session,
// no document row, no blob. Multipart GraphQL requests need a CSRF preflight header and an API key.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { DocumentEntity } from '../../server/src/modules/document/document.entity';
import { SessionEntity } from '../../server/src/modules/session/session.entity';
import { Api, createBusiness, type Json, startTestService, type TestService } from '../support/harness';
import { blobFiles, setUpSignWorkflow } from '../support/sign-workflow';
import { createMultipart, type FilePart, minimalPdf, publishWorkflow } from '../support/workflows';

const MiB = 1024 * 1024;
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

const M_CREATE = `mutation($input: CreateSessionInput!, $key: String, $documents: [Upload!]) {
  createSession(input: $input, idempotencyKey: $key, documents: $documents) {
    id workflowId workflowRevision url status expires idempotentReplayed } }`;

type GqlAnswer = { status: number; body: { data?: Json; errors?: Json[] } };

/** A GraphQL multipart request: the files go to variables.documents.<i>, in order. */
async function gqlMultipart(
  api: Api,
  variables: Record<string, unknown>,
  files: FilePart[],
  headers: Record<string, string> = { 'apollo-require-preflight': 'true' },
): Promise<GqlAnswer> {
  const form = new FormData();
  const documents = files.map(() => null);
  form.append('operations', JSON.stringify({ query: M_CREATE, variables: { ...variables, documents } }));
  form.append(
    'map',
    JSON.stringify(Object.fromEntries(files.map((_, i) => [String(i), [`variables.documents.${i}`]]))),
  );
  files.forEach((f, i) => {
    const bytes = typeof f.bytes === 'string' ? new TextEncoder().encode(f.bytes) : f.bytes;
    form.append(String(i), new Blob([bytes as Uint8Array<ArrayBuffer>], { type: f.type }), f.filename);
  });
  const res = await fetch(`${api.baseUrl}/graphql`, {
    method: 'POST',
    headers: { ...(api.apiKey ? { Authorization: `Bearer ${api.apiKey}` } : {}), ...headers },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as GqlAnswer['body'] };
}

/** The REST body a GraphQL SessionCreated stands for. */
const asRest = (g: Json): Json => ({
  id: g.id,
  workflow_id: g.workflowId,
  workflow_revision: g.workflowRevision,
  url: g.url,
  status: g.status,
  expires: g.expires,
});
const withoutId = (body: Json, id: string): Json => JSON.parse(JSON.stringify(body).replaceAll(id, '<id>'));

describe('GraphQL createSession with documents, compared with REST multipart', () => {
  const clock = new ManualClock(Date.parse('2030-02-01T09:00:00.000Z'));
  let t: TestService;
  let api: Api;
  let businessId: string;
  let signWf: string;
  let sign2Wf: string;
  let identifyWf: string;
  let blobRoot: string;

  beforeAll(async () => {
    t = await startTestService({ clock, workers: false, label: 'gql_uploads' });
    const biz = await createBusiness(t);
    businessId = biz.businessId;
    api = new Api(t.baseUrl, biz.apiKey);
    // not API-only: these sessions are created from the dashboard's GraphQL
    ({ workflowId: signWf } = await setUpSignWorkflow(api, {
      webhookUrl: 'http://127.0.0.1:9/hooks',
      apiOnly: false,
    }));
    ({ workflowId: sign2Wf } = await setUpSignWorkflow(api, { documents: 2, apiOnly: false }));
    ({ workflowId: identifyWf } = await publishWorkflow(
      api,
      [{ primitive: 'identify', claims: ['given_name'] }],
      undefined,
      'Workflow',
      false,
    ));
    blobRoot = path.join(t.svc.config.dataDir, 'blobs');
  });
  afterAll(async () => t?.stop());

  const snapshot = async () => ({
    sessions: await t.svc.ds.getRepository(SessionEntity).countBy({ businessId }),
    docs: await t.svc.ds.getRepository(DocumentEntity).countBy({ businessId }),
    blobs: blobFiles(blobRoot).length,
  });
  const storedDocs = async (sessionId: string) =>
    (
      await t.svc.ds.getRepository(DocumentEntity).find({ where: { sessionId }, order: { position: 'ASC' } })
    ).map((d) => ({
      stage: d.stage,
      position: d.position,
      label: d.label,
      sha256: d.sha256,
      size: d.size,
      contentType: d.contentType,
    }));

  const pdf = (filename = 'contract.pdf', text = 'Contract'): FilePart => ({
    filename,
    type: 'application/pdf',
    bytes: minimalPdf(text),
  });

  it('creates a sign session with the same answer and the same stored documents', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 7, 7, 7]);
    const files: FilePart[] = [
      { filename: 'Mietvertrag ü.pdf', type: 'application/pdf', bytes: minimalPdf('Lease 2030') },
      { filename: 'scan.png', type: 'image/png', bytes: png },
    ];
    const metadata = { ref: 'L-7', n: [1, 2] };
    const rest = await createMultipart(
      api,
      { workflow_id: sign2Wf, metadata: JSON.stringify(metadata), expires_in: '900' },
      files,
    );
    const gql = await gqlMultipart(api, { input: { workflowId: sign2Wf, metadata, expiresIn: 900 } }, files);
    expect(rest.status).toBe(201);
    expect(gql.status).toBe(200);
    expect(gql.body.errors).toBeUndefined();
    const { idempotentReplayed, ...created } = gql.body.data.createSession;
    expect(idempotentReplayed).toBe(false);
    const mapped = asRest(created);
    expect(Object.keys(mapped).sort()).toEqual(Object.keys(rest.body).sort());
    expect(withoutId(mapped, mapped.id)).toEqual(withoutId(rest.body, rest.body.id));
    expect(mapped.expires).toBe('2030-02-01T09:15:00.000Z');

    // the same document rows, pointing at the same content-addressed blobs
    const viaRest = await storedDocs(rest.body.id);
    const viaGql = await storedDocs(mapped.id);
    expect(viaGql).toEqual(viaRest);
    expect(viaGql.map((d) => [d.stage, d.position, d.label, d.sha256, d.size, d.contentType])).toEqual([
      [0, 0, 'Mietvertrag ü.pdf', sha256(files[0].bytes), files[0].bytes.length, 'application/pdf'],
      [0, 1, 'scan.png', sha256(png), png.length, 'image/png'],
    ]);
    for (const d of viaGql) {
      const blob = path.join(blobRoot, d.sha256.slice(0, 2), d.sha256.slice(2, 4), d.sha256);
      expect(sha256(fs.readFileSync(blob))).toBe(d.sha256);
    }
    // and both read back identically
    const readRest = await api.rest('GET', `/v1/sessions/${rest.body.id}`);
    const readGql = await api.rest('GET', `/v1/sessions/${mapped.id}`);
    expect(withoutId(readGql.body, mapped.id)).toEqual(withoutId(readRest.body, rest.body.id));
    expect(readGql.body.metadata).toEqual(metadata);
  });

  it('shares the Idempotency-Key reservation with REST and stores nothing on the replay', async () => {
    const key = `gql-upload-idem-${clock.now().getTime()}`;
    const first = await createMultipart(api, { workflow_id: signWf }, [pdf('a.pdf', 'idem')], {
      'Idempotency-Key': key,
    });
    expect(first.status).toBe(201);
    const before = await snapshot();
    const again = await gqlMultipart(api, { input: { workflowId: signWf }, key }, [pdf('b.pdf', 'other')]);
    expect(again.body.errors).toBeUndefined();
    expect(again.body.data.createSession.idempotentReplayed).toBe(true);
    expect(again.body.data.createSession.id).toBe(first.body.id);
    expect(await snapshot()).toEqual(before);
  });

  const tooBig = new Uint8Array(10 * MiB + 1);
  tooBig.set(new TextEncoder().encode('%PDF-1.4\n'));
  const big = (n: number): FilePart => {
    const b = new Uint8Array(Math.floor(8.5 * MiB));
    b.set(new TextEncoder().encode(`%PDF-1.4\n${n}`));
    return { filename: `big${n}.pdf`, type: 'application/pdf', bytes: b };
  };

  const refusals: {
    name: string;
    wf: () => string;
    files: () => FilePart[];
    code: string;
    status: number;
  }[] = [
    {
      name: 'a sign workflow without files',
      wf: () => signWf,
      files: () => [],
      code: 'documents_required',
      status: 400,
    },
    {
      name: 'files for a workflow without a sign step',
      wf: () => identifyWf,
      files: () => [pdf()],
      code: 'validation_failed',
      status: 400,
    },
    {
      name: 'more files than the sign step takes',
      wf: () => signWf,
      files: () => [pdf('a.pdf', 'a'), pdf('b.pdf', 'b')],
      code: 'validation_failed',
      status: 400,
    },
    {
      name: 'fewer files than the sign steps take',
      wf: () => sign2Wf,
      files: () => [pdf()],
      code: 'validation_failed',
      status: 400,
    },
    {
      name: 'a disallowed content type',
      wf: () => signWf,
      files: () => [{ filename: 'x.zip', type: 'application/zip', bytes: 'PK\u0003\u0004' }],
      code: 'unsupported_media_type',
      status: 415,
    },
    {
      name: 'bytes that are not of the declared type',
      wf: () => signWf,
      files: () => [{ filename: 'fake.pdf', type: 'application/pdf', bytes: '<html>not a pdf</html>' }],
      code: 'unsupported_media_type',
      status: 415,
    },
    {
      name: 'an empty file',
      wf: () => signWf,
      files: () => [{ filename: 'empty.txt', type: 'text/plain', bytes: '' }],
      code: 'validation_failed',
      status: 400,
    },
    {
      name: 'more than 10 files',
      wf: () => signWf,
      files: () => Array.from({ length: 11 }, (_, i) => pdf(`f${i}.pdf`, String(i))),
      code: 'validation_failed',
      status: 400,
    },
    {
      name: 'a file over 10 MiB',
      wf: () => signWf,
      files: () => [{ filename: 'huge.pdf', type: 'application/pdf', bytes: tooBig }],
      code: 'payload_too_large',
      status: 413,
    },
    {
      name: 'files over 25 MiB together',
      wf: () => signWf,
      files: () => [big(1), big(2), big(3)],
      code: 'payload_too_large',
      status: 413,
    },
  ];

  it.each(refusals)('refuses $name with $code over both, storing nothing', async (c) => {
    const before = await snapshot();
    const rest = await createMultipart(api, { workflow_id: c.wf() }, c.files());
    const gql = await gqlMultipart(api, { input: { workflowId: c.wf() } }, c.files());
    expect(rest.status).toBe(c.status);
    expect(rest.body.code).toBe(c.code);
    expect(rest.body.param).toBe('file');
    expect(gql.body.data ?? null).toBeNull();
    expect(gql.body.errors).toHaveLength(1);
    const ext = gql.body.errors?.[0].extensions;
    expect({ code: ext.code, status: ext.status, param: ext.param }).toEqual({
      code: c.code,
      status: c.status,
      param: 'documents',
    });
    if (c.code !== 'documents_required') expect(gql.body.errors?.[0].message).toBe(rest.body.detail);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a create without documents for a sign workflow over JSON too (documents_required)', async () => {
    const before = await snapshot();
    const rest = await api.rest('POST', '/v1/sessions', { workflow_id: signWf });
    const gql = await api.gql(M_CREATE, { input: { workflowId: signWf } });
    expect([rest.status, rest.body.code]).toEqual([400, 'documents_required']);
    expect(gql.errors?.[0].extensions).toMatchObject({
      code: 'documents_required',
      status: 400,
      param: 'documents',
    });
    expect(gql.errors?.[0].message).toMatch(/`documents`/);
    expect(await snapshot()).toEqual(before);
  });

  it('accepts uploads only as multipart file parts', async () => {
    const gql = await api.gql(M_CREATE, { input: { workflowId: signWf }, documents: ['%PDF-1.4 inline'] });
    expect(gql.data ?? null).toBeNull();
    expect(gql.errors?.[0].extensions.code).toBe('validation_failed');
  });

  it('refuses a multipart request without a CSRF preflight header or without an API key, storing nothing', async () => {
    const before = await snapshot();
    const noHeader = await gqlMultipart(api, { input: { workflowId: signWf } }, [pdf()], {});
    expect(noHeader.status).toBe(400);
    expect(noHeader.body.errors?.[0].extensions).toMatchObject({
      code: 'validation_failed',
      param: 'apollo-require-preflight',
    });
    const operationNameHeader = await gqlMultipart(api, { input: { workflowId: signWf } }, [pdf('ok.pdf')], {
      'x-apollo-operation-name': 'CreateSession',
    });
    expect(operationNameHeader.body.errors).toBeUndefined();
    const afterOk = await snapshot();
    expect(afterOk.sessions).toBe(before.sessions + 1);

    const anonymous = await gqlMultipart(new Api(t.baseUrl), { input: { workflowId: signWf } }, [pdf()]);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.errors?.[0].extensions.code).toBe('unauthenticated');
    const wrongKey = await gqlMultipart(
      new Api(t.baseUrl, 'sk_sandbox_wrong'),
      { input: { workflowId: signWf } },
      [pdf()],
    );
    expect(wrongKey.body.errors?.[0].extensions.code).toBe('unauthenticated');
    expect(await snapshot()).toEqual(afterOk);

    // Apollo's own csrfPrevention (simple requests such as GET) answers with the same code
    const get = await fetch(`${t.baseUrl}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { Authorization: `Bearer ${api.apiKey}` },
    });
    expect(get.status).toBe(400);
    expect(((await get.json()) as Json).errors[0].extensions.code).toBe('validation_failed');
  });

  it('answers a malformed multipart request with validation_failed', async () => {
    const form = new FormData();
    form.append('map', '{}');
    const res = await fetch(`${t.baseUrl}/graphql`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${api.apiKey}`, 'apollo-require-preflight': 'true' },
      body: form,
    });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(400);
    expect(body.errors[0].extensions.code).toBe('validation_failed');
  });
});
