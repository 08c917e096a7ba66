// Minimal structured logger. Never pass capability URLs, session ids, keys or secrets: use logTag().
type Level = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function createLogger(level: Level): Logger {
  const emit = (l: Level, msg: string, fields?: Record<string, unknown>) => {
    if (order[l] < order[level]) return;
    const line = JSON.stringify({ t: new Date().toISOString(), level: l, msg, ...fields });
    (l === 'error' || l === 'warn' ? process.stderr : process.stdout).write(`${line}\n`);
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}
