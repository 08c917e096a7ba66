// What a forger with the project's renderer can do to a receipt (ADR 0027, ADR 0047), and the small loopback
// servers the verify-receipt tests name as services: one serving a key set, and ones that fail to.
import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { canonicalDigest, canonicalJson } from '../../server/src/modules/audit/canonical-json';
import { type ReceiptData, renderReceiptPdf } from '../../server/src/modules/receipt/receipt.document';
import type { Json } from './harness';

const sha256Hex = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export interface ForgerKeys {
  audit: { privateKey: KeyObject; kid: string };
  seal: { privateKey: KeyObject; kid: string };
  /** The forger's own key set, as a service would publish it (each key with its purpose). */
  jwks: { keys: Json[] };
}

/** A forger's key pair(s): separate audit and seal keys under the given kids. */
export function forgerKeys(auditKid: string, sealKid = auditKid): ForgerKeys {
  const a = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const s = sealKid === auditKid ? a : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = (k: KeyObject, kid: string, purpose: string) => ({
    ...k.export({ format: 'jwk' }),
    kid,
    alg: 'ES256',
    use: 'sig',
    purpose,
  });
  return {
    audit: { privateKey: a.privateKey, kid: auditKid },
    seal: { privateKey: s.privateKey, kid: sealKid },
    jwks: {
      keys:
        sealKid === auditKid
          ? [jwk(a.publicKey, auditKid, 'audit-signing')]
          : [jwk(a.publicKey, auditKid, 'audit-signing'), jwk(s.publicKey, sealKid, 'receipt-seal')],
    },
  };
}

/**
 * Another given name on step 1, every audit record re-signed (digests and chain recomputed) with the forger's
 * audit key, the keys inside the file replaced by the forger's, re-rendered and sealed with the forger's seal
 * key. `origin`: the service the forged file names (its jwks_url and verify_url), e.g. the forger's own.
 */
export async function forgeReceipt(
  json: Json,
  keys: ForgerKeys,
  opts: { givenName?: string; origin?: string; version?: 2 | 3 } = {},
): Promise<Uint8Array> {
  const data = structuredClone(json) as ReceiptData;
  const first = data.steps[0] as ReceiptData['steps'][number];
  first.result = {
    ...first.result,
    claims: { ...(first.result.claims as object), given_name: opts.givenName ?? 'Max' },
  };
  let previous: string | null = null;
  for (const step of data.steps) {
    const { service_signature: _sig, ...content } = step.audit_record;
    const signed = {
      ...content,
      result_digest: `sha-256:${canonicalDigest(step.result).toString('base64url')}`,
      previous_audit_hash: previous,
    };
    const bytes = Buffer.from(canonicalJson(signed));
    step.audit_digest = sha256Hex(bytes);
    const value = sign('sha256', bytes, { key: keys.audit.privateKey, dsaEncoding: 'der' }).toString(
      'base64url',
    );
    step.audit_record = { ...signed, service_signature: { kid: keys.audit.kid, value } };
    previous = step.audit_digest;
  }
  data.keys = structuredClone(keys.jwks) as ReceiptData['keys'];
  if (opts.version) data.version = opts.version;
  if (data.seal) data.seal = { ...data.seal, kid: keys.seal.kid };
  if (opts.origin) {
    data.jwks_url = `${opts.origin}/.well-known/service-audit-jwks.json`;
    data.verify_url = `${opts.origin}/verify`;
  }
  return renderReceiptPdf(data, async (zeroed) =>
    sign('sha256', zeroed, { key: keys.seal.privateKey, dsaEncoding: 'der' }),
  );
}

/** A loopback server; `answer` decides each response (or never answers). */
export async function loopbackServer(
  answer: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A service publishing `jwks` at /.well-known/service-audit-jwks.json (404 elsewhere). */
export const keySetServer = (jwks: unknown) =>
  loopbackServer((req, res) => {
    if (req.url !== '/.well-known/service-audit-jwks.json') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
  });
