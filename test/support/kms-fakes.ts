// Loopback fakes of the two cloud KMS wire protocols, holding real P-256 keys, so the service's real SDKs
// (auth header, serialization, CRC32C and name checks) run end to end with no cloud:
// - Google Cloud KMS REST (the SDK's `fallback: true` transport, HTTP/1.1 JSON):
//   POST /v1/{name}:asymmetricSign and GET /v1/{name}/publicKey; POST /v1/{cryptoKey}:encrypt / :decrypt on
//   symmetric keys with versions (the primary encrypts, any version decrypts, `usedPrimary` says which).
// - AWS KMS JSON 1.1: POST / with X-Amz-Target TrentService.Sign / GetPublicKey / Encrypt / Decrypt.
// Symmetric ciphertexts name their key and version and are AES-256-GCM under that version's key with the
// associated data (GCP) or encryption context (AWS) bound, so another key or context fails as in the cloud.
// Each fake records the requests it received so tests can assert what went over the wire.
import {
  createCipheriv,
  createDecipheriv,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32c } from '@aws-crypto/crc32c';
import { p256 } from '@noble/curves/nist.js';

interface FakeKey {
  d: Buffer;
  publicKey: KeyObject;
}

function newP256(): FakeKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' });
  return { d: Buffer.from(jwk.d as string, 'base64url'), publicKey };
}

const readBody = (req: http.IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      s += c;
    });
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown> | undefined;
}

abstract class FakeServer {
  readonly requests: RecordedRequest[] = [];
  protected readonly keys = new Map<string, FakeKey>();
  private server?: http.Server;
  url = '';

  /** Adds a key (version) holding a fresh P-256 key pair; returns its name. */
  addKey(name: string): string {
    this.keys.set(name, newP256());
    return name;
  }

  /** Symmetric keys: versions (32-byte AES keys) and the index of the primary. */
  protected readonly symmetric = new Map<string, { versions: Buffer[]; primary: number }>();

  /** Adds a symmetric ENCRYPT_DECRYPT key with one version; returns its name. */
  addSymmetricKey(name: string): string {
    this.symmetric.set(name, { versions: [randomBytes(32)], primary: 0 });
    return name;
  }

  /** A new version becomes the primary (GCP rotation); older versions still decrypt. */
  rotateSymmetricKey(name: string): void {
    const k = this.symmetric.get(name);
    if (!k) throw new Error('unknown key');
    k.versions.push(randomBytes(32));
    k.primary = k.versions.length - 1;
  }

  /** `FK1|<name length, 2 bytes>|<name>|<version, 1 byte>|iv|tag|ct`, AES-256-GCM with `aad` bound. */
  protected sealSymmetric(name: string, aad: Buffer, plaintext: Buffer): { blob: Buffer; version: number } {
    const k = this.symmetric.get(name);
    if (!k) throw new Error('unknown key');
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', k.versions[k.primary] as Buffer, iv);
    c.setAAD(aad);
    const ct = Buffer.concat([c.update(plaintext), c.final()]);
    const n = Buffer.from(name, 'utf8');
    const len = Buffer.alloc(2);
    len.writeUInt16BE(n.length);
    const head = Buffer.concat([Buffer.from('FK1'), len, n, Buffer.from([k.primary])]);
    return { blob: Buffer.concat([head, iv, c.getAuthTag(), ct]), version: k.primary + 1 };
  }

  /** The plaintext of a blob made under `name`; throws when made under another key or with other `aad`. */
  protected openSymmetric(name: string, aad: Buffer, blob: Buffer): { plaintext: Buffer; primary: boolean } {
    if (blob.subarray(0, 3).toString() !== 'FK1') throw new Error('not a ciphertext');
    const len = blob.readUInt16BE(3);
    const owner = blob.subarray(5, 5 + len).toString('utf8');
    if (owner !== name) throw new Error('ciphertext of another key');
    const k = this.symmetric.get(name);
    const v = blob[5 + len] as number;
    const key = k?.versions[v];
    if (!k || !key) throw new Error('unknown key version');
    const rest = blob.subarray(6 + len);
    const d = createDecipheriv('aes-256-gcm', key, rest.subarray(0, 12));
    d.setAAD(aad);
    d.setAuthTag(rest.subarray(12, 28));
    return { plaintext: Buffer.concat([d.update(rest.subarray(28)), d.final()]), primary: v === k.primary };
  }

  protected signDigest(name: string, digest: Buffer): Buffer {
    const k = this.keys.get(name);
    if (!k) throw new Error('unknown key');
    return Buffer.from(p256.sign(digest, k.d, { prehash: false, format: 'der' }));
  }

  protected abstract handle(req: RecordedRequest, res: http.ServerResponse): unknown;

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      readBody(req).then((text) => {
        const rec: RecordedRequest = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
        };
        this.requests.push(rec);
        try {
          this.handle(rec, res);
        } catch (e) {
          res.writeHead(500).end(String(e));
        }
      });
    });
    await new Promise<void>((r) => this.server?.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

const json = (res: http.ServerResponse, status: number, body: unknown, type = 'application/json') => {
  res.writeHead(status, { 'Content-Type': type }).end(JSON.stringify(body));
};

/** Google Cloud KMS v1 REST. */
export class FakeGcpKms extends FakeServer {
  protected handle(req: RecordedRequest, res: http.ServerResponse): unknown {
    if (req.headers.authorization !== 'Bearer fake-gcp-token')
      return json(res, 401, { error: { code: 401, message: 'no credentials', status: 'UNAUTHENTICATED' } });
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const sym = /^\/v1\/(.+):(encrypt|decrypt)$/.exec(path);
    if (sym && req.method === 'POST')
      return this.handleSymmetric(sym[1] as string, sym[2] as string, req, res);
    const sign = /^\/v1\/(.+):asymmetricSign$/.exec(path);
    const pub = /^\/v1\/(.+)\/publicKey$/.exec(path);
    const name = sign?.[1] ?? pub?.[1];
    const key = name ? this.keys.get(name) : undefined;
    if (!name || !key)
      return json(res, 404, { error: { code: 404, message: 'not found', status: 'NOT_FOUND' } });
    if (sign && req.method === 'POST') {
      // google.protobuf.Int64Value is its bare value in proto3 JSON: "digestCrc32c": "123"
      const b = req.body as { digest?: { sha256?: string }; digestCrc32c?: string };
      const digest = Buffer.from(b.digest?.sha256 ?? '', 'base64');
      if (digest.length !== 32)
        return json(res, 400, { error: { code: 400, message: 'bad digest', status: 'INVALID_ARGUMENT' } });
      const crcOk = Number(b.digestCrc32c) === crc32c(digest);
      const sig = this.signDigest(name, digest);
      return json(res, 200, {
        name,
        signature: sig.toString('base64'),
        signatureCrc32c: String(crc32c(sig)),
        verifiedDigestCrc32c: crcOk,
        protectionLevel: 1,
      });
    }
    if (pub && req.method === 'GET') {
      const pem = key.publicKey.export({ type: 'spki', format: 'pem' }) as string;
      return json(res, 200, {
        name,
        pem,
        pemCrc32c: String(crc32c(Buffer.from(pem, 'utf8'))),
        algorithm: 12, // EC_SIGN_P256_SHA256 (the SDK asks for enum-encoding=int)
        protectionLevel: 1,
      });
    }
    json(res, 405, { error: { code: 405, message: 'method', status: 'UNIMPLEMENTED' } });
  }

  /** encrypt / decrypt on a symmetric cryptoKey; int64 CRC32C values travel as strings (proto3 JSON). */
  private handleSymmetric(name: string, op: string, req: RecordedRequest, res: http.ServerResponse): unknown {
    const k = this.symmetric.get(name);
    if (!k) return json(res, 404, { error: { code: 404, message: 'not found', status: 'NOT_FOUND' } });
    const b = (req.body ?? {}) as Record<string, string>;
    const aad = Buffer.from(b.additionalAuthenticatedData ?? '', 'base64');
    const aadOk = Number(b.additionalAuthenticatedDataCrc32c) === crc32c(aad);
    if (op === 'encrypt') {
      const plaintext = Buffer.from(b.plaintext ?? '', 'base64');
      const { blob, version } = this.sealSymmetric(name, aad, plaintext);
      return json(res, 200, {
        name: `${name}/cryptoKeyVersions/${version}`,
        ciphertext: blob.toString('base64'),
        ciphertextCrc32c: String(crc32c(blob)),
        verifiedPlaintextCrc32c: Number(b.plaintextCrc32c) === crc32c(plaintext),
        verifiedAdditionalAuthenticatedDataCrc32c: aadOk,
        protectionLevel: 1,
      });
    }
    const blob = Buffer.from(b.ciphertext ?? '', 'base64');
    if (Number(b.ciphertextCrc32c) !== crc32c(blob) || !aadOk)
      return json(res, 400, { error: { code: 400, message: 'bad crc32c', status: 'INVALID_ARGUMENT' } });
    try {
      const out = this.openSymmetric(name, aad, blob);
      return json(res, 200, {
        plaintext: out.plaintext.toString('base64'),
        plaintextCrc32c: String(crc32c(out.plaintext)),
        usedPrimary: out.primary,
        protectionLevel: 1,
      });
    } catch {
      return json(res, 400, {
        error: {
          code: 400,
          message: "Decryption failed: verify that 'name' refers to the correct CryptoKey.",
          status: 'INVALID_ARGUMENT',
        },
      });
    }
  }
}

/** AWS KMS JSON 1.1 (TrentService). Keys are addressed by ARN or by an alias that points at one. */
export class FakeAwsKms extends FakeServer {
  readonly aliases = new Map<string, string>();

  protected handle(req: RecordedRequest, res: http.ServerResponse): unknown {
    const type = 'application/x-amz-json-1.1';
    if (!String(req.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256 Credential=test/'))
      return json(res, 400, { __type: 'UnrecognizedClientException', message: 'no signature' }, type);
    const b = (req.body ?? {}) as Record<string, string>;
    const arn = this.aliases.get(b.KeyId ?? '') ?? b.KeyId ?? '';
    const target0 = req.headers['x-amz-target'];
    if (target0 === 'TrentService.Encrypt' || target0 === 'TrentService.Decrypt')
      return this.handleSymmetric(arn, target0, req, res);
    const key = this.keys.get(arn);
    if (!key) return json(res, 400, { __type: 'NotFoundException', message: 'no such key' }, type);
    const target = req.headers['x-amz-target'];
    if (target === 'TrentService.Sign') {
      const digest = Buffer.from(b.Message ?? '', 'base64');
      if (b.MessageType !== 'DIGEST' || b.SigningAlgorithm !== 'ECDSA_SHA_256' || digest.length !== 32)
        return json(res, 400, { __type: 'ValidationException', message: 'bad sign request' }, type);
      const sig = this.signDigest(arn, digest);
      return json(
        res,
        200,
        { KeyId: arn, Signature: sig.toString('base64'), SigningAlgorithm: 'ECDSA_SHA_256' },
        type,
      );
    }
    if (target === 'TrentService.GetPublicKey') {
      const der = key.publicKey.export({ type: 'spki', format: 'der' });
      return json(
        res,
        200,
        {
          KeyId: arn,
          PublicKey: der.toString('base64'),
          KeySpec: 'ECC_NIST_P256',
          KeyUsage: 'SIGN_VERIFY',
          SigningAlgorithms: ['ECDSA_SHA_256'],
        },
        type,
      );
    }
    json(res, 400, { __type: 'UnknownOperationException', message: String(target) }, type);
  }

  /** Encrypt / Decrypt with a symmetric key; the encryption context is bound like AWS binds it. */
  private handleSymmetric(
    arn: string,
    target: string,
    req: RecordedRequest,
    res: http.ServerResponse,
  ): unknown {
    const type = 'application/x-amz-json-1.1';
    const b = (req.body ?? {}) as Record<string, unknown>;
    if (!this.symmetric.has(arn))
      return json(res, 400, { __type: 'NotFoundException', message: 'no such key' }, type);
    const ctx = (b.EncryptionContext ?? {}) as Record<string, string>;
    const aad = Buffer.from(JSON.stringify(Object.entries(ctx).sort()), 'utf8');
    if (target === 'TrentService.Encrypt') {
      const { blob } = this.sealSymmetric(arn, aad, Buffer.from(String(b.Plaintext ?? ''), 'base64'));
      return json(
        res,
        200,
        { CiphertextBlob: blob.toString('base64'), KeyId: arn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' },
        type,
      );
    }
    const blob = Buffer.from(String(b.CiphertextBlob ?? ''), 'base64');
    try {
      const out = this.openSymmetric(arn, aad, blob);
      return json(
        res,
        200,
        { Plaintext: out.plaintext.toString('base64'), KeyId: arn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' },
        type,
      );
    } catch (e) {
      const wrongKey = String(e).includes('another key');
      return json(
        res,
        400,
        wrongKey
          ? {
              __type: 'IncorrectKeyException',
              message: 'The key ID in the request does not identify the key that encrypted the ciphertext.',
            }
          : { __type: 'InvalidCiphertextException', message: 'invalid ciphertext' },
        type,
      );
    }
  }
}
