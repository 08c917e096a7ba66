// The signer's browser for receipt tests without Chromium: the binding cookie set at start, the hosted
// transport, the signer GraphQL operations and the plain GET downloads, all over real HTTP.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName, PDFRawStream, StandardFonts } from 'pdf-lib';
import type { Json } from './harness';
import { tsNode } from './script-bundles';
import { SignerClient } from './signer';

export const SIGNER_RECEIPT_FIELDS = `sessionId sessionStatus environment partial completedSteps totalSteps access
  accessUntil pdfDownloaded canClose receiptUrl
  originals { position stage label sha256 size contentType url }
  email { codeSentTo codeExpiresAt resendAvailableAt codesLeftThisHour sentTo }`;

export class SignerBrowser {
  readonly client: SignerClient;
  cookie = '';
  constructor(
    readonly baseUrl: string,
    readonly sessionId: string,
  ) {
    this.client = new SignerClient(baseUrl, sessionId);
  }

  async start(): Promise<void> {
    const res = await this.client.start();
    if (res.status !== 200) throw new Error(`start: ${res.status} ${JSON.stringify(res.body)}`);
    this.cookie = (res.setCookie ?? '').split(';')[0] as string;
  }

  async get(p: string): Promise<{ status: number; headers: Headers; bytes: Buffer; json: Json }> {
    const res = await fetch(`${this.baseUrl}${p}`, { headers: this.cookie ? { Cookie: this.cookie } : {} });
    const bytes = Buffer.from(await res.arrayBuffer());
    let json: Json;
    try {
      json = JSON.parse(bytes.toString('utf8'));
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, bytes, json };
  }

  read() {
    return this.get(`/v1/sessions/${this.sessionId}/receipt`);
  }
  pdf() {
    return this.get(`/t/sessions/${this.sessionId}/receipt.pdf`);
  }

  async gql(
    query: string,
    variables: Record<string, unknown> = {},
  ): Promise<{ data?: Json; errors?: Json[] }> {
    const res = await fetch(`${this.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(this.cookie ? { Cookie: this.cookie } : {}) },
      body: JSON.stringify({ query, variables: { sessionId: this.sessionId, ...variables } }),
    });
    return (await res.json()) as never;
  }
  state() {
    return this.gql(
      `query($sessionId: ID!) { signerReceipt(sessionId: $sessionId) { ${SIGNER_RECEIPT_FIELDS} } }`,
    );
  }
  requestCode(email: string) {
    return this.gql(
      `mutation($sessionId: ID!, $email: String!) { requestReceiptEmailCode(sessionId: $sessionId, email: $email) { ${SIGNER_RECEIPT_FIELDS} } }`,
      { email },
    );
  }
  sendEmail(code: string) {
    return this.gql(
      `mutation($sessionId: ID!, $code: String!) { sendReceiptEmail(sessionId: $sessionId, code: $code) { ${SIGNER_RECEIPT_FIELDS} } }`,
      { code },
    );
  }
  close() {
    return this.gql(
      `mutation($sessionId: ID!) { closeReceiptAccess(sessionId: $sessionId) { ${SIGNER_RECEIPT_FIELDS} } }`,
    );
  }
}

/** A scratch directory for PDFs and poppler/verify-receipt runs. */
export function scratch(): { dir: string; write(name: string, b: Uint8Array): string; done(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'receipt-'));
  return {
    dir,
    write(name, b) {
      const f = path.join(dir, name);
      fs.writeFileSync(f, b);
      return f;
    },
    done: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

export const pdftotext = (file: string): string =>
  execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });

/** receipt.json of a receipt PDF, as poppler's pdfdetach extracts it. */
export function pdfdetachJson(file: string): Json {
  const out = `${file}.json`;
  execFileSync('pdfdetach', ['-save', '1', '-o', out, file]);
  return JSON.parse(fs.readFileSync(out, 'utf8'));
}

export const REPO_ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/**
 * Runs the verify-receipt CLI on `file` [--service … | --jwks … | --self-consistent-only]: exit code, standard
 * output and standard error. `viaPnpm`: exactly the README's command, `pnpm --silent verify-receipt …` from the
 * root (its script wiring and its quiet output); otherwise the same source built once for the test run
 * (script-bundles.ts), a third of the start-up. Asynchronous, so the in-process server keeps serving (a
 * blocked event loop lets keep-alive sockets die under the client).
 */
export function verifyReceiptCli(
  file: string,
  opts: {
    jwks?: string;
    service?: string;
    selfConsistentOnly?: boolean;
    env?: Record<string, string>;
    viaPnpm?: boolean;
  } = {},
): Promise<{ code: number; out: string; err: string }> {
  const args = [
    file,
    ...(opts.jwks ? ['--jwks', opts.jwks] : []),
    ...(opts.service ? ['--service', opts.service] : []),
    ...(opts.selfConsistentOnly ? ['--self-consistent-only'] : []),
  ];
  const env = { ...process.env, ...opts.env };
  const run = opts.viaPnpm
    ? { file: 'pnpm', args: ['--silent', 'verify-receipt', ...args] }
    : tsNode('server/src/tools/verify-receipt.ts', args);
  return new Promise((resolve) => {
    execFile(run.file, run.args, { cwd: REPO_ROOT, encoding: 'utf8', env }, (err, stdout, stderr) =>
      resolve({
        code: err ? (typeof err.code === 'number' ? err.code : 1) : 0,
        out: stdout,
        err: stderr,
      }),
    );
  });
}

/**
 * The same PDF (pages untouched) with its receipt.json replaced, as a person with a PDF editor could do it:
 * the embedded file stream gets the new bytes, the rest of the file is written out again by pdf-lib.
 */
export async function withReceiptJson(pdf: Uint8Array, json: unknown): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  let replaced = 0;
  for (const [ref, obj] of doc.context.enumerateIndirectObjects()) {
    if (!(obj instanceof PDFRawStream)) continue;
    if (obj.dict.get(PDFName.of('Type')) !== PDFName.of('EmbeddedFile')) continue;
    doc.context.assign(
      ref,
      doc.context.stream(Buffer.from(JSON.stringify(json, null, 2)), { Type: 'EmbeddedFile' }),
    );
    replaced++;
  }
  if (replaced !== 1) throw new Error(`expected one embedded file, found ${replaced}`);
  return doc.save({ useObjectStreams: false });
}

/** The PDF with one more line of text drawn on its first page (an edited page; the attachment unchanged). */
export async function withLineOnPage(pdf: Uint8Array, line: string): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.getPage(0).drawText(line, { x: 48, y: 60, size: 12, font });
  return doc.save({ useObjectStreams: false });
}
