// Loopback fakes of the two cloud KMS wire protocols, holding real P-256 keys, so the service's real SDKs
// (auth header, serialization, CRC32C and name checks) run end to end with no cloud:
// - Google Cloud KMS REST (the SDK's `fallback: true` transport, HTTP/1.1 JSON):
//   POST /v1/{name}:asymmetricSign and GET /v1/{name}/publicKey.
// - AWS KMS JSON 1.1: POST / with X-Amz-Target TrentService.Sign / TrentService.GetPublicKey.
// Each fake records the requests it received so tests can assert what went over the wire.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
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
}
