// es256.ts replaced jose's compactVerify on the presentation path: it must accept exactly what jose accepted
// for our allow-list (ES256) and refuse every variation an attacker controls.
import { generateKeyPairSync, sign } from 'node:crypto';
import {
  CompactSign,
  calculateJwkThumbprint,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  type JWK,
} from 'jose';
import { describe, expect, it } from 'vitest';
import { decodeCompactJws, PublicKeyCache, p256Thumbprint, publicKeyOf, verifyCompactEs256 } from './es256';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
/** A correctly signed JWS with any header (jose refuses to sign some of the headers tested here). */
const rawJws = (header: unknown, payload: unknown = { a: 1 }) => {
  const input = `${enc(header)}.${enc(payload)}`;
  const sig = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${sig.toString('base64url')}`;
};

async function jws(header: Record<string, unknown> = { alg: 'ES256', typ: 'kb+jwt' }, payload = { a: 1 }) {
  return new CompactSign(Buffer.from(JSON.stringify(payload)))
    .setProtectedHeader(header as { alg: string })
    .sign(privateKey);
}

describe('ES256 compact JWS verification (node:crypto)', () => {
  it('accepts a JWS jose signed, with the key imported from its JWK, memoized or not', async () => {
    const jwk = (await exportJWK(publicKey)) as JWK;
    const token = await jws();
    expect(() => verifyCompactEs256(token, publicKeyOf(jwk))).not.toThrow();
    const cache = new PublicKeyCache(2);
    expect(() => verifyCompactEs256(token, cache.get(jwk))).not.toThrow();
    expect(cache.get(jwk)).toBe(cache.get({ ...jwk, kid: 'ignored' }));
    // bounded: two other keys push the first one out, which is then imported again (a new object)
    const first = cache.get(jwk);
    cache.get((await exportJWK(other.publicKey)) as JWK);
    cache.get((await exportJWK(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey)) as JWK);
    expect(cache.get(jwk)).not.toBe(first);
    expect(new PublicKeyCache(0).get(jwk)).not.toBe(new PublicKeyCache(0).get(jwk));
  });

  it('refuses another key, a changed payload or header, and a truncated or re-encoded signature', async () => {
    const token = await jws();
    const [h, p, s] = token.split('.') as [string, string, string];
    const refuse = (t: string, key = publicKey) => expect(() => verifyCompactEs256(t, key)).toThrow();
    refuse(token, other.publicKey);
    refuse(`${h}.${enc({ a: 2 })}.${s}`);
    refuse(`${enc({ alg: 'ES256', typ: 'dc+sd-jwt' })}.${p}.${s}`);
    refuse(`${h}.${p}.${s.slice(0, -4)}`);
    refuse(`${h}.${p}.${Buffer.from(s, 'base64url').toString('base64')}`); // standard base64 (+ / =)
    refuse(`${h}.${p}`);
    refuse(`${h}.${p}.${s}.x`);
  });

  it('refuses alg none, a MAC or another algorithm, crit extensions and a header that is not an object', async () => {
    // each correctly signed by the right key: only the header makes them unacceptable
    for (const header of [{ alg: 'none' }, { alg: 'HS256' }, { alg: 'ES384' }, {}, [1], 'ES256'])
      expect(() => verifyCompactEs256(rawJws(header), publicKey)).toThrow();
    expect(() => verifyCompactEs256(rawJws({ alg: 'ES256', crit: ['exp'], exp: 1 }), publicKey)).toThrow(
      /crit/,
    );
    expect(() => verifyCompactEs256(rawJws({ alg: 'ES256', typ: 'x' }), publicKey)).not.toThrow();
    const [h, p] = rawJws({ alg: 'none' }).split('.') as [string, string];
    expect(() => verifyCompactEs256(`${h}.${p}.`, publicKey)).toThrow();
  });

  it('refuses keys that are not P-256 public keys, including a point off the curve', async () => {
    const jwk = (await exportJWK(publicKey)) as JWK;
    const y = Buffer.from(jwk.y as string, 'base64url');
    y[31] = (y[31] as number) ^ 1;
    expect(() => publicKeyOf({ ...jwk, y: y.toString('base64url') })).toThrow();
    expect(() => publicKeyOf({ ...jwk, crv: 'P-384' })).toThrow();
    expect(() => publicKeyOf({ kty: 'OKP', crv: 'Ed25519', x: jwk.x })).toThrow();
    // the cache never remembers a refused key: the second request is refused again
    const cache = new PublicKeyCache();
    for (let i = 0; i < 2; i++) expect(() => cache.get({ ...jwk, y: y.toString('base64url') })).toThrow();
  });

  it('computes the RFC 7638 thumbprint jose computes', async () => {
    const jwk = (await exportJWK(publicKey)) as JWK;
    expect(p256Thumbprint({ ...jwk, kid: 'x', use: 'sig' })).toBe(
      await calculateJwkThumbprint(jwk, 'sha256'),
    );
  });

  it('decodes a JWS once into what jose decodes (header and payload), and refuses what jose refuses', async () => {
    const token = await jws({ alg: 'ES256', typ: 'kb+jwt' }, { a: 1 });
    const d = decodeCompactJws(token);
    expect(d.header).toEqual(decodeProtectedHeader(token));
    expect(d.payload).toEqual(decodeJwt(token));
    expect(`${d.signingInput}.${d.signature}`).toBe(token);
    const [h, p, s] = token.split('.') as [string, string, string];
    for (const bad of [
      `${h}.${p}`, // two parts
      `.${p}.${s}`, // no header
      `${h}.${enc([1])}.${s}`, // payload not an object
      `${h}.${Buffer.from('not json').toString('base64url')}.${s}`,
      `${enc('ES256')}.${p}.${s}`, // header not an object
      `${h}.${p}+.${s}`, // not base64url
    ]) {
      expect(() => decodeCompactJws(bad)).toThrow();
      expect(() => decodeJwt(bad) && decodeProtectedHeader(bad)).toThrow();
    }
  });
});
