// The request shapes that used to take the whole service down or answer 5xx (issue 7), sent to a service in a
// child process: each must be refused with a stable 4xx code, and the process must still be alive and
// answering afterwards (a crash shows as an exit of the child, not as a swallowed error in this runner).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Json } from '../support/harness';
import { type ChildService, startChildService } from '../support/service-process';
import { readSignerSession } from '../support/signer';
import { minimalPdf } from '../support/workflows';

let s: ChildService;

beforeAll(async () => {
  s = await startChildService();
});
// A shape that killed the process fails its own test; the next one gets a fresh process, so each shape is
// judged on its own.
beforeEach(async () => {
  const answers = await fetch(`${s.baseUrl}/oid4vp/verifier-root.pem`).then(
    () => true,
    () => false,
  );
  if (!answers || !s.alive()) {
    await s.stop();
    s = await startChildService();
  }
});
afterAll(async () => {
  await s?.stop();
});

async function send(
  method: string,
  p: string,
  opts: { headers?: Record<string, string>; body?: string | Uint8Array; auth?: boolean } = {},
): Promise<{ status: number; body: Json; headers: Headers }> {
  const res = await fetch(`${s.baseUrl}${p}`, {
    method,
    headers: { ...(opts.auth === false ? {} : { Authorization: `Bearer ${s.apiKey}` }), ...opts.headers },
    body: opts.body as BodyInit | undefined,
  });
  const text = await res.text();
  let body: Json = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body, headers: res.headers };
}

/** The process is alive and still serves a normal authenticated request. */
async function expectAlive(): Promise<void> {
  // a crash kills the child shortly after the answer (or instead of it): give the exit a moment to land
  await new Promise((r) => setImmediate(r));
  expect(s.alive(), `service process died:\n${s.stderr().slice(-2000)}`).toBe(true);
  const created = await send('POST', '/v1/sessions', {
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ workflow_id: s.workflowId }),
  });
  expect(created.status).toBe(201);
}

const B = 'hardeningBoundary7';
const CRLF = '\r\n';
const multipartHeaders = { 'Content-Type': `multipart/form-data; boundary=${B}` };
const pdf = new TextDecoder().decode(minimalPdf());

describe('request shapes that crashed the service or answered 5xx (issue 7)', () => {
  it('a multipart part without name= is refused with 400 validation_failed', async () => {
    const body = [
      `--${B}`,
      'Content-Disposition: form-data',
      '',
      'value',
      `--${B}`,
      `Content-Disposition: form-data; name="workflow_id"`,
      '',
      s.workflowId,
      `--${B}--`,
      '',
    ].join(CRLF);
    const res = await send('POST', '/v1/sessions', { headers: multipartHeaders, body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    await expectAlive();
  });

  it('a multipart file part cut off before its closing boundary is refused with 400', async () => {
    const body = [
      `--${B}`,
      `Content-Disposition: form-data; name="workflow_id"`,
      '',
      s.signWorkflowId,
      `--${B}`,
      'Content-Disposition: form-data; name="file"; filename="a.pdf"',
      'Content-Type: application/pdf',
      '',
      pdf.slice(0, 40),
    ].join(CRLF);
    const res = await send('POST', '/v1/sessions', { headers: multipartHeaders, body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    await expectAlive();
  });

  it.each([
    ['GET', '/v1/sessions/%ZZ'],
    ['GET', '/v1/audits/%'],
    ['POST', '/v1/sessions/%E0%A4%A/stop'],
    ['POST', '/t/sessions/%/start'],
    ['GET', '/t/sessions/%C0%AF'],
    ['GET', '/oid4vp/requests/%zz'],
  ])('malformed percent-encoding in a path parameter (%s %s) is a 400', async (method, p) => {
    const res = await send(method, p);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.param).toBe('path');
    await expectAlive();
  });

  it.each([
    ['POST', '/v1/sessions'],
    ['POST', '/v1/sessions/sess_x/stop'],
    ['POST', '/v1/no-such-route'],
    ['POST', '/t/sessions/sess_x/wallet-response'],
    ['POST', '/graphql'],
  ])('a JSON body declared as charset=latin1 (%s %s) is a 415', async (method, p) => {
    const res = await send(method, p, {
      headers: { 'Content-Type': 'application/json; charset=latin1' },
      body: JSON.stringify({ workflow_id: s.workflowId, query: '{ __typename }' }),
    });
    expect(res.status).toBe(415);
    // /graphql: the body is refused before GraphQL runs, as a problem like every other route
    expect(res.body.code).toBe('unsupported_media_type');
    await expectAlive();
  });

  it.each([
    ['cut-off escape', '%E0%A4%A'],
    ['lone percent', '%'],
    ['invalid escape', 'a%zzb'],
    ['quote', '"unterminated'],
    ['5000 characters', 'x'.repeat(5000)],
  ])(
    'a malformed binding cookie (%s) is treated as no binding, without any credential',
    async (_name, cookie) => {
      const created = await send('POST', '/v1/sessions', {
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ workflow_id: s.workflowId }),
      });
      const id = created.body.id as string;
      const headers = { Cookie: `svc_browser=${cookie}` };
      // opening the link replaces it with a server-issued cookie; the read refuses the malformed value itself
      const opened = await send('POST', `/t/sessions/${id}/open`, { headers, auth: false });
      expect(opened.status).toBe(204);
      const issued = (opened.headers.get('set-cookie') ?? '').split(';')[0] as string;
      expect(issued).toMatch(/^svc_browser=/);
      expect((await readSignerSession(s.baseUrl, id, headers.Cookie)).body.code).toBe('not_found');
      const projection = await readSignerSession(s.baseUrl, id, issued);
      expect(projection.status).toBe(200);
      expect(projection.body.binding).toBe('none');
      const request = await send('POST', `/t/sessions/${id}/wallet-request`, { headers, auth: false });
      expect(request.status).toBeGreaterThanOrEqual(400);
      expect(request.status).toBeLessThan(500);
      await expectAlive();
    },
  );

  describe('GraphQL multipart', () => {
    const gqlHeaders = { 'apollo-require-preflight': 'true' };
    const operations = JSON.stringify({
      query:
        'mutation($i: CreateSessionInput!, $d: [Upload!]) { createSession(input: $i, documents: $d) { id } }',
      variables: { i: { workflowId: 'wf_placeholder' }, d: [null] },
    });

    it.each([
      ['no boundary', 'multipart/form-data', 'operations=x'],
      ['garbage body', `multipart/form-data; boundary=${B}`, 'not a form at all'],
      [
        'a part without name=',
        `multipart/form-data; boundary=${B}`,
        [`--${B}`, 'Content-Disposition: form-data', '', '{}', `--${B}--`, ''].join(CRLF),
      ],
    ])('a malformed form (%s) is 400 validation_failed', async (_name, contentType, body) => {
      const res = await send('POST', '/graphql', {
        headers: { ...gqlHeaders, 'Content-Type': contentType },
        body,
      });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('validation_failed');
      await expectAlive();
    });

    // The file is read by the resolver, so this refusal comes like every other refusal of the files
    // (graphql-uploads.test.ts): in `errors` with the REST status in extensions, not as internal_error.
    it('a cut-off file part is refused as validation_failed (status 400), not internal_error', async () => {
      const ops = operations.replace('wf_placeholder', s.signWorkflowId);
      const body = [
        `--${B}`,
        'Content-Disposition: form-data; name="operations"',
        '',
        ops,
        `--${B}`,
        'Content-Disposition: form-data; name="map"',
        '',
        '{"0":["variables.d.0"]}',
        `--${B}`,
        'Content-Disposition: form-data; name="0"; filename="a.pdf"',
        'Content-Type: application/pdf',
        '',
        pdf.slice(0, 40),
      ].join(CRLF);
      const res = await send('POST', '/graphql', {
        headers: { ...gqlHeaders, 'Content-Type': `multipart/form-data; boundary=${B}` },
        body,
      });
      expect(res.status).toBeLessThan(500);
      expect(res.body.data?.createSession ?? null).toBeNull();
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', status: 400 });
      await expectAlive();
    });
  });
});
