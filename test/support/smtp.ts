// A real SMTP server in the test process (smtp-server), whose messages are parsed by mailparser: the service
// sends through nodemailer over a real TCP connection, and tests assert what a recipient would receive.
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface TestSmtpServer {
  /** `smtp://127.0.0.1:<port>` for SMTP_URL. */
  url: string;
  /** Every message received so far, in arrival order. */
  messages: ParsedMail[];
  /** Resolves with the first message (already received or arriving) that matches. */
  waitFor(pred: (m: ParsedMail) => boolean, timeoutMs?: number): Promise<ParsedMail>;
  /** While true, every recipient is refused (451, as a mail server that is down or throttling would). */
  refusing: boolean;
  stop(): Promise<void>;
}

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const messages: ParsedMail[] = [];
  const waiters: { pred: (m: ParsedMail) => boolean; resolve: (m: ParsedMail) => void }[] = [];
  const state = { refusing: false };
  const server = new SMTPServer({
    authOptional: true,
    onRcptTo(_address, _session, callback) {
      if (!state.refusing) return callback();
      const e = new Error('Mailbox temporarily unavailable') as Error & { responseCode: number };
      e.responseCode = 451;
      callback(e);
    },
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          messages.push(mail);
          for (const w of [...waiters]) {
            if (w.pred(mail)) {
              waiters.splice(waiters.indexOf(w), 1);
              w.resolve(mail);
            }
          }
          callback();
        },
        (e: Error) => callback(e),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    get refusing() {
      return state.refusing;
    },
    set refusing(v: boolean) {
      state.refusing = v;
    },
    waitFor(pred, timeoutMs = 10_000) {
      const found = messages.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const w = { pred, resolve };
        waiters.push(w);
        setTimeout(() => {
          const i = waiters.indexOf(w);
          if (i >= 0) {
            waiters.splice(i, 1);
            reject(new Error(`no matching mail within ${timeoutMs} ms (${messages.length} received)`));
          }
        }, timeoutMs).unref();
      });
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
