import fs from 'node:fs';
import type { SignerSessionFieldsFragment } from '../../hosted-web/src/graphql/generated';
import type { Json } from './harness';

/** The session as the signer page reads it (GraphQL signerSession, generated from schema/schema.graphql). */
export type SignerView = SignerSessionFieldsFragment;

/** The page's own operations document: the helper sends exactly the query the page sends. */
const SIGNER_DOCUMENT = fs.readFileSync(
  new URL('../../hosted-web/src/graphql/signer.graphql', import.meta.url),
  'utf8',
);

/**
 * GraphQL signerSession as the page sends it, with a browser's cookie (`name=value`, or '' for none). A
 * refusal answers its status and `{code}` (from `extensions`), like a /t problem body.
 */
export async function readSignerSession(
  baseUrl: string,
  sessionId: string,
  cookie: string,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(cookie ? { Cookie: cookie } : {}) },
    body: JSON.stringify(signerReadBody(sessionId)),
  });
  const out = (await res.json()) as { data?: { signerSession: SignerView | null }; errors?: Json[] };
  const view = out.data?.signerSession;
  if (view) return { status: 200, body: view };
  const ext = out.errors?.[0]?.extensions ?? {};
  return { status: ext.status ?? res.status, body: { code: ext.code, errors: out.errors } };
}

/** The body of the page's read as it sends it: its document, the SignerSession operation, the session id. */
export const signerReadBody = (sessionId: string) => ({
  query: SIGNER_DOCUMENT,
  operationName: 'SignerSession',
  variables: { sessionId },
});

// The end user's browser without a browser: a cookie jar and fetch. It reads the session the way the page
// does (ADR 0041, 0043, 0062): on load POST /t/sessions/{id}/open carrying the page's signerSession read (the
// binding cookie and the read's answer), later GraphQL signerSession. The /t mutations (start, wallet request,
// wallet response, document shown) answer the wallet protocol and acks; Start and the wallet response answer
// the page's read instead when they carry it, as the page sends them (startAndRead, submitAndRead).
export class SignerClient {
  private cookie = '';
  constructor(
    readonly baseUrl: string,
    readonly sessionId: string,
  ) {}

  /** A /t call of this session (suffix after /t/sessions/{id}); a 204 answers an empty body. */
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
    const json = res.status === 204 ? {} : await res.json();
    return { status: res.status, body: json, setCookie };
  }

  /** Opening the link: the binding cookie issued or renewed (204), no session data. */
  open() {
    return this.call('POST', '/open');
  }

  /**
   * Opening the link as the page does (ADR 0062): the open carries the page's first read (its GraphQL request)
   * and answers it (200, the GraphQL response), with the binding cookie.
   */
  openAndRead() {
    return this.call('POST', '/open', signerReadBody(this.sessionId));
  }

  /**
   * The session as the page reads it on loading: the open carrying its signerSession read (ADR 0062). A
   * refusal answers its status and `{code}`, the /t problem body.
   */
  async session(): Promise<{ status: number; body: Json }> {
    const opened = await this.openAndRead();
    if (opened.status !== 200) return { status: opened.status, body: opened.body };
    return { status: 200, body: opened.body.data.signerSession };
  }

  /** The session, typed; throws when the page could not read it. */
  async view(): Promise<SignerView> {
    const r = await this.session();
    if (r.status !== 200) throw new Error(`signerSession: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body as SignerView;
  }

  /** Start: binds this browser; answers the ack (status, current_stage). */
  start() {
    return this.call('POST', '/start');
  }
  /**
   * Start as the page sends it (ADR 0062 amendment): carrying the page's read (its GraphQL request) and
   * answering it (200, the GraphQL response), read in the Start's own round trips.
   */
  startAndRead() {
    return this.call('POST', '/start', signerReadBody(this.sessionId));
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
    // the page is loaded already: it re-reads its session (opening the link only for a browser without a cookie)
    const read = this.cookie
      ? await readSignerSession(this.baseUrl, this.sessionId, this.cookie)
      : await this.session();
    if (read.status !== 200) return; // the wallet request's own answer tells why
    const p = read.body as SignerView;
    const step = p.steps[p.currentStage];
    for (const d of step?.primitive === 'sign' ? (step.documents ?? []) : []) {
      const r = await this.documentShown(d.position);
      if (r.status !== 200) throw new Error(`document ${d.position} not recorded: ${JSON.stringify(r.body)}`);
    }
  }
  /** The wallet response; answers the ack (status, current_stage). */
  submit(requestId: string, response: unknown) {
    return this.call('POST', '/wallet-response', { request_id: requestId, response });
  }
  /**
   * The wallet response as the page sends it (ADR 0062 amendment): carrying the page's read (`read`) and
   * answering it (200, the GraphQL response), read in the completion's own round trips; a refusal answers its
   * problem.
   */
  submitAndRead(requestId: string, response: unknown) {
    return this.call('POST', '/wallet-response', {
      request_id: requestId,
      response,
      read: signerReadBody(this.sessionId),
    });
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
