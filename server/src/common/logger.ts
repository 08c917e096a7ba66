// Structured logs through pino: one JSON object a line (`t`, `level`, `msg`, fields), warn and error on stderr,
// the rest on stdout; child loggers carry bindings such as a request id. Never pass capability URLs, session
// ids, keys or secrets: use logTag(). Two defences still stand behind that rule: pino's redaction censors
// fields named like credentials wherever they sit, and every line leaving the process is scrubbed of session
// ids, API keys and webhook secrets, whatever field or message carried them.
import pino from 'pino';
import { logTag } from './ids';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** A logger whose lines also carry `bindings` (e.g. `{ request_id }`). */
  child(bindings: Record<string, unknown>): Logger;
}

const SECRET_SHAPES: [RegExp, (m: string) => string][] = [
  // session ids are capabilities (they are the hosted URL): keep a short non-reversible tag
  [/sess_[0-9a-z]{26}/g, (m) => `sess_#${logTag(m)}`],
  [/sk_(?:sandbox|production)_[0-9a-z]{12}_[0-9a-z]{40}/g, () => 'sk_***'],
  [/whsec_[\w+/=-]{20,}/g, () => 'whsec_***'],
];

/** Fields censored by name at any of the first two levels (headers, bodies, errors handed to a log call). */
export const REDACTED_FIELDS = [
  'authorization',
  'cookie',
  'set-cookie',
  'secret',
  'password',
  'token',
  'apiKey',
];
const REDACT_PATHS = REDACTED_FIELDS.flatMap((f) => [`["${f}"]`, `*["${f}"]`]);

/**
 * Last line of defence: whatever reaches a log line (driver errors quote values, stacks quote inputs), session
 * ids, API keys and webhook secrets never leave in the clear.
 */
export function redact(line: string): string {
  return SECRET_SHAPES.reduce((acc, [re, f]) => acc.replace(re, f), line);
}

interface Sink {
  write(line: string): unknown;
}

/** `out` gets debug and info lines, `err` warn and error lines (process stdout/stderr unless given). */
export function createLogger(level: LogLevel, sinks: { out?: Sink; err?: Sink } = {}): Logger {
  const scrubbed = (s: Sink) => ({ write: (line: string) => s.write(redact(line)) });
  const root = pino(
    {
      level,
      base: undefined,
      messageKey: 'msg',
      timestamp: () => `,"t":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: '***' },
    },
    pino.multistream(
      [
        { level: 'debug', stream: scrubbed(sinks.out ?? process.stdout) },
        { level: 'warn', stream: scrubbed(sinks.err ?? process.stderr) },
      ],
      { dedupe: true },
    ),
  );
  return wrap(root);
}

function wrap(p: pino.Logger): Logger {
  const at =
    (l: 'debug' | 'info' | 'warn' | 'error') =>
    (msg: string, fields?: Record<string, unknown>): void =>
      fields ? p[l](fields, msg) : p[l](msg);
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (bindings) => wrap(p.child(bindings)),
  };
}
