import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { AppError } from './errors';
import { assertDeliverableUrl, guardedLookup, isForbiddenAddress } from './ssrf';

const refused = async (url: string, environment: 'sandbox' | 'production', allowPrivate = false) => {
  const err = await assertDeliverableUrl(url, { environment, allowPrivate }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect(err).toMatchObject({ code: 'webhook_url_invalid', param: 'url' });
};

describe('webhook URL rules', () => {
  it('classifies non-public addresses, including IPv4-mapped IPv6', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '64:ff9b::a00:1',
    ]) {
      expect(isForbiddenAddress(a), a).toBe(true);
    }
    for (const a of ['8.8.8.8', '172.32.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8']) {
      expect(isForbiddenAddress(a), a).toBe(false);
    }
  });

  it('refuses unparsable URLs, other schemes, credentials, http in production and private targets', async () => {
    await refused('not a url', 'sandbox');
    await refused('ftp://example.com/hook', 'sandbox');
    await refused('http://example.com/hook', 'production');
    await refused('https://user:pw@8.8.8.8/hook', 'production');
    await refused('https://127.0.0.1/hook', 'sandbox');
    await refused('https://[::1]/hook', 'sandbox');
    await refused('https://0x7f000001/hook', 'sandbox'); // 127.0.0.1 in another spelling
    await refused('https://localhost/hook', 'sandbox'); // resolves to loopback
  });

  it('allows private targets only for sandbox endpoints when allowed, never for production', async () => {
    await expect(
      assertDeliverableUrl('http://127.0.0.1:9/hook', { environment: 'sandbox', allowPrivate: true }),
    ).resolves.toBeUndefined();
    await refused('https://127.0.0.1:9/hook', 'production', true);
    await expect(
      assertDeliverableUrl('https://8.8.8.8/hook', { environment: 'production', allowPrivate: false }),
    ).resolves.toBeUndefined();
  });

  it('pins the check into the connection lookup, so a name cannot switch to a private address after the check', async () => {
    const lookup = (opts: Parameters<typeof guardedLookup>[0], all: boolean) =>
      new Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[] }>((resolve) =>
        guardedLookup(opts)('localhost', { all }, (err, address) => resolve({ err, address })),
      );
    const refusedLookup = await lookup({ environment: 'sandbox', allowPrivate: false }, false);
    expect(refusedLookup.err?.code).toBe('EADDRNOTALLOWED');
    expect((await lookup({ environment: 'production', allowPrivate: true }, true)).err?.code).toBe(
      'EADDRNOTALLOWED',
    );
    const allowed = await lookup({ environment: 'sandbox', allowPrivate: true }, false);
    expect(allowed.err).toBeNull();
    expect(isForbiddenAddress(allowed.address as string)).toBe(true); // loopback, allowed for sandbox dev only
    const all = await lookup({ environment: 'sandbox', allowPrivate: true }, true);
    expect(Array.isArray(all.address)).toBe(true);
  });
});
