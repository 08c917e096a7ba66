import type { Json } from './harness';

// The end user's browser over the hosted transport, without a browser: a cookie jar and fetch.
export class SignerClient {
  private cookie = '';
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
    return { status: res.status, body: await res.json(), setCookie };
  }

  projection() {
    return this.call('GET', '');
  }
  start() {
    return this.call('POST', '/start');
  }
  walletRequest() {
    return this.call('POST', '/wallet-request');
  }
  submit(requestId: string, response: unknown) {
    return this.call('POST', '/wallet-response', { request_id: requestId, response });
  }
}
