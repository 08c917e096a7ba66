// Minimal structured logger. Never pass capability URLs, session ids, keys or secrets: use logTag().
import { logTag } from './ids';

type Level = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const SECRET_SHAPES: [RegExp, (m: string) => string][] = [
  // session ids are capabilities (they are the hosted URL): keep a short non-reversible tag
  [/sess_[0-9a-z]{26}/g, (m) => `sess_#${logTag(m)}`],
  [/sk_(?:sandbox|production)_[0-9a-z]{12}_[0-9a-z]{40}/g, () => 'sk_***'],
  [/whsec_[\w+/=-]{20,}/g, () => 'whsec_***'],
];

/**
 * Last line of defence: whatever reaches a log line (driver errors quote values, stacks quote inputs), session
 * ids, API keys and webhook secrets never leave in the clear.
 */
export function redact(line: string): string {
  return SECRET_SHAPES.reduce((acc, [re, f]) => acc.replace(re, f), line);
}

export function createLogger(level: Level): Logger {
  const emit = (l: Level, msg: string, fields?: Record<string, unknown>) => {
    if (order[l] < order[level]) return;
    const line = redact(JSON.stringify({ t: new Date().toISOString(), level: l, msg, ...fields }));
    (l === 'error' || l === 'warn' ? process.stderr : process.stdout).write(`${line}\n`);
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}
