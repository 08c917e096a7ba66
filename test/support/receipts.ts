// The signer's browser for receipt tests without Chromium: the binding cookie set at start, the hosted
// transport, the signer GraphQL operations and the plain GET downloads, all over real HTTP.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Json } from './harness';
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

const SERVER_DIR = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../server');

/**
 * Runs `pnpm --filter server verify-receipt` (tsx) on a file: exit code and output. Asynchronous, so the
 * in-process server keeps serving (a blocked event loop lets keep-alive sockets die under the client).
 */
export function verifyReceiptCli(file: string, jwks?: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      path.join(SERVER_DIR, 'node_modules/.bin/tsx'),
      ['src/tools/verify-receipt.ts', file, ...(jwks ? ['--jwks', jwks] : [])],
      { cwd: SERVER_DIR, encoding: 'utf8' },
      (err, stdout) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout }),
    );
  });
}
