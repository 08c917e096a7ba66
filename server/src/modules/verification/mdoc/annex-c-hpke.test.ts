// The service's HPKE open (annex-c-hpke.ts, node:crypto) against a seal by another implementation (@hpke/core,
// the wallets' side): it opens what was sealed to its key with its info, and refuses an encapsulated key that is
// not a P-256 point, another recipient key, another info, a changed ciphertext and an unusable private scalar.
// The info openAnnexCResponse encodes directly is the SessionTranscript the wallet side seals with.
import { randomBytes } from 'node:crypto';
import { Aes128Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { cborEncode } from '@owf/mdoc';
import { exportJWK, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  annexCSessionTranscript,
  annexCSessionTranscriptBytes,
  openAnnexCResponse,
  sealAnnexCResponse,
} from './annex-c';
import { hpkeOpenBase, hpkeRecipientKey } from './annex-c-hpke';

const suite = new CipherSuite({
  kem: new DhkemP256HkdfSha256(),
  kdf: new HkdfSha256(),
  aead: new Aes128Gcm(),
});
const ab = (b: Uint8Array): ArrayBuffer =>
  b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

async function recipient(): Promise<JsonWebKey> {
  const { privateKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true });
  return (await exportJWK(privateKey)) as JsonWebKey;
}

async function seal(to: JsonWebKey, info: Uint8Array, plaintext: Uint8Array) {
  const raw = Buffer.concat([
    Buffer.from([4]),
    Buffer.from(to.x as string, 'base64url'),
    Buffer.from(to.y as string, 'base64url'),
  ]);
  const sender = await suite.createSenderContext({
    recipientPublicKey: await suite.kem.importKey('raw', ab(raw), true),
    info: ab(info),
  });
  const cipherText = new Uint8Array(await sender.seal(ab(plaintext)));
  return { enc: new Uint8Array(sender.enc), cipherText };
}

describe('hpkeOpenBase (node:crypto) opens what @hpke/core seals', () => {
  it('opens a ciphertext sealed to its key with its info', async () => {
    const key = await recipient();
    const info = randomBytes(40);
    const plaintext = randomBytes(300);
    const { enc, cipherText } = await seal(key, info, plaintext);
    const opened = hpkeOpenBase({ recipient: hpkeRecipientKey(key), enc, info, cipherText });
    expect(Buffer.from(opened).equals(plaintext)).toBe(true);
  });

  it('refuses an encapsulated key off the curve, another key, another info and a changed ciphertext', async () => {
    const key = await recipient();
    const info = randomBytes(40);
    const { enc, cipherText } = await seal(key, info, randomBytes(100));
    const offCurve = Uint8Array.from(enc);
    offCurve[64] = (offCurve[64] as number) ^ 1;
    expect(() => hpkeOpenBase({ recipient: hpkeRecipientKey(key), enc: offCurve, info, cipherText })).toThrow(
      /not valid for specified curve/,
    );
    const other = await recipient();
    expect(() => hpkeOpenBase({ recipient: hpkeRecipientKey(other), enc, info, cipherText })).toThrow();
    expect(() =>
      hpkeOpenBase({ recipient: hpkeRecipientKey(key), enc, info: randomBytes(40), cipherText }),
    ).toThrow();
    const changed = Uint8Array.from(cipherText);
    changed[0] = (changed[0] as number) ^ 1;
    expect(() =>
      hpkeOpenBase({ recipient: hpkeRecipientKey(key), enc, info, cipherText: changed }),
    ).toThrow();
  });

  it('refuses a private scalar that is no P-256 private key (zero, 31 bytes)', async () => {
    const key = await recipient();
    expect(() => hpkeRecipientKey({ ...key, d: Buffer.alloc(32).toString('base64url') })).toThrow();
    expect(() => hpkeRecipientKey({ ...key, d: randomBytes(31).toString('base64url') })).toThrow();
  });
});

describe('the Annex C HPKE info', () => {
  it('is the SessionTranscript the wallet seals with, for short, long and non-ASCII origins', () => {
    const encryptionInfo = randomBytes(120).toString('base64url');
    for (const origin of [
      'https://a.example',
      `https://${'x'.repeat(300)}.example`,
      'https://bücher.example:8443',
    ]) {
      expect(Buffer.from(annexCSessionTranscriptBytes(encryptionInfo, origin))).toEqual(
        Buffer.from(annexCSessionTranscript(encryptionInfo, origin).encode()),
      );
    }
  });

  it('opens what the sandbox wallet seals, and not with another origin in the transcript', async () => {
    const key = await recipient();
    const { x, y } = key;
    const encryptionInfo = Buffer.from(
      cborEncode([
        'dcapi',
        new Map<string, unknown>([
          ['nonce', randomBytes(32)],
          [
            'recipientPublicKey',
            new Map<number, unknown>([
              [1, 2],
              [-1, 1],
              [-2, Buffer.from(x as string, 'base64url')],
              [-3, Buffer.from(y as string, 'base64url')],
            ]),
          ],
        ]),
      ]),
    ).toString('base64url');
    const deviceResponse = randomBytes(500);
    const answer = await sealAnnexCResponse({ deviceResponse, encryptionInfo, origin: 'https://a.example' });
    const opened = await openAnnexCResponse({
      answer,
      recipientPrivateJwk: key as never,
      stored: { encryption_info: encryptionInfo, origin: 'https://a.example' },
    });
    expect(Buffer.from(opened.deviceResponse).equals(deviceResponse)).toBe(true);
    // the transcript it keeps for the verification is the wallet's, and another request's is computed afresh
    expect(
      Buffer.from(
        opened.transcriptFor({ encryption_info: encryptionInfo, origin: 'https://a.example' }).encode(),
      ),
    ).toEqual(Buffer.from(annexCSessionTranscript(encryptionInfo, 'https://a.example').encode()));
    expect(
      Buffer.from(
        opened.transcriptFor({ encryption_info: encryptionInfo, origin: 'https://b.example' }).encode(),
      ),
    ).toEqual(Buffer.from(annexCSessionTranscript(encryptionInfo, 'https://b.example').encode()));
    await expect(
      openAnnexCResponse({
        answer,
        recipientPrivateJwk: key as never,
        stored: { encryption_info: encryptionInfo, origin: 'https://b.example' },
      }),
    ).rejects.toMatchObject({ code: 'response_decryption_failed' });
  });
});
