import type { Json } from './harness';

// The end user's browser over the hosted transport, without a browser: a cookie jar and fetch.
export class SignerClient {
  private cookie = '';
  /** The last projection this browser received (start, submit, a read), as the page keeps it. */
  private last: Json | undefined;
  constructor(
    readonly baseUrl: string,
    readonly sessionId: string,
  ) {}

  async call(
    method: string,
    suffix: string,
    body?: unknown,
  ): Promise<{ status: number; body: Json; setCookie: string | null }> {
    const res = await fetch(`${this.baseUrl}/t/sessions/${this.sessionId}${suffix}`, {
      method,
      headers: {
        ...(this.cookie ? { Cookie: this.cookie } : {}),
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) this.cookie = setCookie.split(';')[0] as string;
    const json = await res.json();
    if (res.ok && Array.isArray(json?.steps) && typeof json.current_stage === 'number') this.last = json;
    return { status: res.status, body: json, setCookie };
  }

  projection() {
    return this.call('GET', '');
  }
  start() {
    return this.call('POST', '/start');
  }
  /**
   * The wallet request for the current step, asked as the page asks it: on a sign step after reporting every
   * document as shown to the end (the server refuses it before, ADR 0029; `rawWalletRequest` skips that).
   */
  async walletRequest() {
    await this.showCurrentDocuments();
    return this.rawWalletRequest();
  }
  rawWalletRequest() {
    return this.call('POST', '/wallet-request');
  }
  /** What the page reports once it has shown document `position` of the current sign step to its end. */
  documentShown(position: number) {
    return this.call('POST', `/documents/${position}/shown`);
  }
  /** As the page does on a sign step: reports every document of the current step as shown to the end. */
  async showCurrentDocuments() {
    const p = this.last ?? (await this.projection()).body;
    const step = p.steps?.[p.current_stage];
    for (const d of step?.primitive === 'sign' ? (step.documents ?? []) : []) {
      const r = await this.documentShown(d.position);
      if (r.status !== 200) throw new Error(`document ${d.position} not recorded: ${JSON.stringify(r.body)}`);
    }
  }
  submit(requestId: string, response: unknown) {
    return this.call('POST', '/wallet-response', { request_id: requestId, response });
  }
}

/**
 * The person's whole share of the current step with the sandbox reference wallet (honest answer):
 * a fresh wallet request, the wallet's response, and the submission. Returns the submission's answer.
 */
export async function shareWithReferenceWallet(
  svc: {
    wallet: {
      respond(input: { persona: string; request: Record<string, unknown>; origin: string }): Promise<unknown>;
    };
  },
  signer: SignerClient,
  persona = 'adult',
) {
  const wr = await signer.walletRequest();
  const response = await svc.wallet.respond({ persona, request: wr.body.request, origin: signer.baseUrl });
  return signer.submit(wr.body.request_id, response);
}

/** A session the business just created (201), started by the person's browser: its id and that browser. */
export async function startedSession(baseUrl: string, created: { status: number; body: Json }) {
  if (created.status !== 201)
    throw new Error(`session not created: ${created.status} ${JSON.stringify(created.body)}`);
  const signer = new SignerClient(baseUrl, created.body.id);
  const start = await signer.start();
  if (start.status !== 200)
    throw new Error(`session not started: ${start.status} ${JSON.stringify(start.body)}`);
  return { id: created.body.id as string, signer };
}
