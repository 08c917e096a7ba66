import { describe, expect, it } from 'vitest';
import { createLogger, redact } from './logger';

const capture = () => {
  const lines: string[] = [];
  return { lines, sink: { write: (l: string) => lines.push(l) } };
};
const parsed = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

describe('log redaction', () => {
  it('never lets a session id, API key or webhook secret through', () => {
    const sid = 'sess_0123456789abcdefghjkmnpqrs';
    const key = `sk_production_${'a'.repeat(12)}_${'b'.repeat(40)}`;
    const secret = 'whsec_Zm9vYmFyYmF6cXV4cXV1eGNvcmdl';
    const line = redact(
      JSON.stringify({ error: `Duplicate entry '${sid}' for key; auth ${key}; ${secret}` }),
    );
    expect(line).not.toContain(sid);
    expect(line).not.toContain(key);
    expect(line).not.toContain(secret);
    expect(line).toMatch(/sess_#[0-9a-f]{10}/);
    // the same id always gets the same tag, so log lines can still be correlated
    expect(redact(sid)).toBe(redact(sid));
  });
});

describe('logger', () => {
  it('writes one JSON object a line: time, level, message and fields; warn and error on the error sink', () => {
    const out = capture();
    const err = capture();
    const log = createLogger('info', { out: out.sink, err: err.sink });
    log.debug('not at info');
    log.info('listening', { port: 3000 });
    log.warn('slow', { ms: 12 });
    log.error('boom');
    expect(parsed(out.lines)).toEqual([
      { t: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), level: 'info', port: 3000, msg: 'listening' },
    ]);
    expect(parsed(err.lines).map((l) => [l.level, l.msg])).toEqual([
      ['warn', 'slow'],
      ['error', 'boom'],
    ]);
    expect(out.lines.every((l) => l.endsWith('\n'))).toBe(true);
  });

  it('scrubs secrets from messages and fields, and censors credential fields by name', () => {
    const out = capture();
    const log = createLogger('debug', { out: out.sink, err: out.sink });
    const sid = 'sess_0123456789abcdefghjkmnpqrs';
    log.info(`opened ${sid}`, {
      headers: { authorization: 'Bearer opaque-value', cookie: 'svc_browser=abc.def', accept: 'json' },
      token: 'tok-123',
      detail: `for whsec_${'x'.repeat(32)}`,
    });
    const text = out.lines.join('');
    for (const s of [sid, 'opaque-value', 'abc.def', 'tok-123', 'x'.repeat(32)])
      expect(text).not.toContain(s);
    const [line] = parsed(out.lines);
    expect(line).toMatchObject({
      msg: expect.stringMatching(/^opened sess_#[0-9a-f]{10}$/),
      headers: { authorization: '***', cookie: '***', accept: 'json' },
      token: '***',
    });
  });

  it('child loggers carry their bindings on every line, and silent writes nothing', () => {
    const out = capture();
    const log = createLogger('info', { out: out.sink, err: out.sink });
    log.child({ request_id: 'req_1' }).child({ route: '/v1/sessions' }).info('answered', { status: 201 });
    expect(parsed(out.lines)[0]).toMatchObject({ request_id: 'req_1', route: '/v1/sessions', status: 201 });
    const quiet = capture();
    const silent = createLogger('silent', { out: quiet.sink, err: quiet.sink });
    silent.error('nothing');
    expect(quiet.lines).toEqual([]);
  });
});
