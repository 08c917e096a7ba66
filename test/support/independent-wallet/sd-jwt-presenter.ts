// The independent wallet's SD-JWT VC side, written from RFC 9901 (SD-JWT) and OpenID4VP 1.0 (DC API, B.3) with
// jose only: it reads the unsigned DC API request's DCQL itself (the first dc+sd-jwt credential query, in
// credential_sets order; with claim_sets the first set it can disclose), keeps exactly the disclosures of the
// requested top-level claims, and appends a key-binding JWT (typ kb+jwt, ES256 by the holder key) with iat,
// aud `origin:<origin>`, the request nonce, sd_hash = b64u(SHA-256(<issuer JWT>~<disclosures>~)) and, for
// transaction data naming the query, transaction_data_hashes (SHA-256 of each string as received).
import { createHash } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';

export interface HeldSdJwt {
  /** The SD-JWT as issued: `<issuer JWT>~<disclosure>~...~`. */
  credential: string;
  holderPrivateJwk: JsonWebKey;
}

type Json = Record<string, unknown>;
interface ClaimQuery {
  id?: string;
  path: (string | number | null)[];
}
interface CredentialQuery {
  id: string;
  format: string;
  claims?: ClaimQuery[];
  claim_sets?: string[][];
}

/** name -> disclosure string, for the object-property disclosures `[salt, name, value]` of an SD-JWT. */
function disclosuresByName(parts: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const d of parts) {
    const decoded = JSON.parse(Buffer.from(d, 'base64url').toString('utf8')) as unknown[];
    if (decoded.length === 3 && typeof decoded[1] === 'string') out.set(decoded[1], d);
  }
  return out;
}

export async function presentSdJwtDcApi(input: {
  request: Json;
  origin: string;
  held: HeldSdJwt;
  /** The wallet's clock (seconds are taken from it for iat). */
  now: Date;
  /** Deviations for negative tests. */
  overrides?: { aud?: string; nonce?: string };
}): Promise<{ vp_token: Record<string, string[]> }> {
  const { request } = input;
  if (request.response_mode !== 'dc_api' || typeof request.nonce !== 'string')
    throw new Error('not an unsigned OpenID4VP DC API request');
  const dcql = request.dcql_query as {
    credentials: CredentialQuery[];
    credential_sets?: { options: string[][] }[];
  };
  const order = (dcql.credential_sets?.[0]?.options ?? dcql.credentials.map((c) => [c.id])).flat();
  const query = order
    .map((id) => dcql.credentials.find((c) => c.id === id))
    .find((c): c is CredentialQuery => c?.format === 'dc+sd-jwt');
  if (!query) throw new Error('the request asks for no SD-JWT VC');

  const [issuerJwt, ...rest] = input.held.credential.split('~');
  const available = disclosuresByName(rest.filter((p) => p.length > 0));
  const claims = query.claims ?? [];
  const nameOf = (c: ClaimQuery) => {
    if (c.path.length !== 1 || typeof c.path[0] !== 'string') throw new Error('only top-level claims');
    return c.path[0];
  };
  let wanted: string[] = claims.map(nameOf);
  if (query.claim_sets) {
    const byId = new Map(claims.map((c) => [c.id, nameOf(c)]));
    const set = query.claim_sets.find((s) => s.every((id) => available.has(byId.get(id) ?? '')));
    if (!set) throw new Error('no claim set can be disclosed');
    wanted = set.map((id) => byId.get(id) as string);
  }
  const selected = wanted.map((name) => {
    const d = available.get(name);
    if (!d) throw new Error(`the credential cannot disclose ${name}`);
    return d;
  });
  const presented = `${[issuerJwt, ...selected].join('~')}~`;
  const sdHash = createHash('sha256').update(presented, 'ascii').digest('base64url');
  // OpenID4VP B.3: the hash of each transaction_data string naming this query, as received (not decoded).
  const txData = (
    Array.isArray(request.transaction_data) ? (request.transaction_data as string[]) : []
  ).filter((encoded) =>
    (
      JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as { credential_ids: string[] }
    ).credential_ids.includes(query.id),
  );
  const kb = await new SignJWT({
    iat: Math.floor(input.now.getTime() / 1000),
    aud: input.overrides?.aud ?? `origin:${input.origin}`,
    nonce: input.overrides?.nonce ?? request.nonce,
    sd_hash: sdHash,
    ...(txData.length > 0
      ? {
          transaction_data_hashes: txData.map((e) =>
            createHash('sha256').update(e, 'utf8').digest('base64url'),
          ),
          transaction_data_hashes_alg: 'sha-256',
        }
      : {}),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'kb+jwt' })
    .sign(await importJWK(input.held.holderPrivateJwk as Parameters<typeof importJWK>[0], 'ES256'));
  return { vp_token: { [query.id]: [presented + kb] } };
}
