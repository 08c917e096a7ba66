// Owns the operator's question "why is this credential trusted, or why not?" (`pnpm operator why-trusted`):
// given an SD-JWT VC or an mdoc (base64url IssuerSigned or DeviceResponse), it runs the same trust decision as a
// presentation (TrustStore / the route IACAs with the mdoc chain check), route by route, and says which route,
// trust list, entity and anchor certificate make it trusted, or what each route answered.
import { createHash } from 'node:crypto';
import { DeviceResponse, IssuerSigned } from '@owf/mdoc';
import { X509Certificate } from '@peculiar/x509';
import { base64url, compactVerify, decodeJwt, decodeProtectedHeader, importJWK } from 'jose';
import { type DataSource, In } from 'typeorm';
import { isAppError } from '../../common/errors';
import type { Environment } from '../../config/config';
import { CredentialRouteEntity } from '../credential-routes/catalog.entities';
import { verifyIacaChain } from '../verification/mdoc/mdoc-context';
import { MdocTrustStore } from '../verification/mdoc/mdoc-trust';
import { TrustStore } from '../verification/trust';
import { TrustListEntity } from './trust-list.entity';

export interface RouteAnswer {
  route: string;
  trusted: boolean;
  /** trusted: how (key, x509 anchor or mdoc IACA), with the list and entity when the anchor came from one. */
  via?: 'key' | 'x509' | 'mdoc_iaca';
  trust_list?: { id: string; name: string } | null;
  entity?: string | null;
  anchor?: { subject: string; fingerprint: string } | null;
  /** not trusted: the refusal. */
  reason?: string;
}

export interface WhyTrusted {
  format: 'dc+sd-jwt' | 'mso_mdoc';
  /** The SD-JWT `iss`, or the mdoc docType. */
  issuer: string;
  signer: { subject: string } | null;
  environment: Environment;
  trusted: boolean;
  /** The first route that trusts it (what a step allowing all these routes would record). */
  route: string | null;
  routes: RouteAnswer[];
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export async function whyTrusted(
  ds: DataSource,
  input: { credential: string; environment: Environment; routes?: string[]; now: Date },
): Promise<WhyTrusted> {
  const routeIds =
    input.routes ??
    (await ds.getRepository(CredentialRouteEntity).find({ select: { id: true }, order: { id: 'ASC' } })).map(
      (r) => r.id,
    );
  const text = input.credential.trim();
  const answers = text.includes('.')
    ? await sdJwt(ds, text, input, routeIds)
    : await mdoc(ds, text, input, routeIds);
  const lists = new Map(
    (
      await ds.getRepository(TrustListEntity).findBy({
        id: In(answers.routes.map((a) => a.trust_list?.id).filter((x): x is string => !!x)),
      })
    ).map((l) => [l.id, l.name]),
  );
  for (const a of answers.routes) if (a.trust_list) a.trust_list.name = lists.get(a.trust_list.id) ?? '';
  const first = answers.routes.find((a) => a.trusted);
  return { ...answers, environment: input.environment, trusted: !!first, route: first?.route ?? null };
}

async function sdJwt(
  ds: DataSource,
  text: string,
  input: { environment: Environment; now: Date },
  routeIds: string[],
): Promise<Omit<WhyTrusted, 'environment' | 'trusted' | 'route'>> {
  const jwt = text.split('~')[0] as string;
  const header = decodeProtectedHeader(jwt) as { x5c?: unknown };
  const iss = String(decodeJwt(jwt).iss ?? '');
  const x5c = Array.isArray(header.x5c) ? (header.x5c as string[]) : [];
  const signer = x5c[0] ? { subject: new X509Certificate(Buffer.from(x5c[0], 'base64')).subject } : null;
  const trust = new TrustStore(ds);
  const routes: RouteAnswer[] = [];
  for (const route of routeIds) {
    try {
      const t = await trust.trustIssuer(iss, input.environment, header, input.now, [route]);
      // trusted means the credential verifies with the key the trust gives, not only that a key exists
      await compactVerify(jwt, await importJWK(t.key, 'ES256'));
      const anchor = t.anchorFingerprint
        ? (await trust.anchors(iss, input.environment, [route])).find(
            (a) => sha256(new Uint8Array(a.cert.rawData)) === t.anchorFingerprint,
          )
        : undefined;
      routes.push({
        route,
        trusted: true,
        via: t.via,
        trust_list: t.trustListId ? { id: t.trustListId, name: '' } : null,
        entity: t.entity ?? null,
        anchor: anchor ? { subject: anchor.cert.subject, fingerprint: t.anchorFingerprint as string } : null,
      });
    } catch (e) {
      routes.push({ route, trusted: false, reason: isAppError(e) ? `${e.code}: ${e.message}` : String(e) });
    }
  }
  return { format: 'dc+sd-jwt', issuer: iss, signer, routes };
}

async function mdoc(
  ds: DataSource,
  text: string,
  input: { environment: Environment; now: Date },
  routeIds: string[],
): Promise<Omit<WhyTrusted, 'environment' | 'trusted' | 'route'>> {
  let issuerAuth: IssuerSigned['issuerAuth'];
  try {
    issuerAuth = IssuerSigned.fromEncodedForOid4Vci(text).issuerAuth;
  } catch {
    const doc = DeviceResponse.decode(base64url.decode(text)).documents?.[0];
    if (!doc) throw new Error('The file is neither an SD-JWT VC nor an mdoc IssuerSigned or DeviceResponse.');
    issuerAuth = doc.issuerSigned.issuerAuth;
  }
  const docType = issuerAuth.mobileSecurityObject.docType;
  const x5chain = issuerAuth.certificateChain;
  const signer = x5chain[0] ? { subject: new X509Certificate(Buffer.from(x5chain[0])).subject } : null;
  const store = new MdocTrustStore(ds);
  const routes: RouteAnswer[] = [];
  for (const route of routeIds) {
    const anchors = await store.routeAnchors(input.environment, docType, [route]);
    let answer: RouteAnswer = { route, trusted: false, reason: 'No IACA for this docType on this route.' };
    for (const a of anchors) {
      try {
        await verifyIacaChain({ trustedCertificates: [a.der], x5chain, now: input.now });
        const cert = new X509Certificate(Buffer.from(a.der));
        answer = {
          route,
          trusted: true,
          via: 'mdoc_iaca',
          trust_list: a.trustListId ? { id: a.trustListId, name: '' } : null,
          entity: a.entity,
          anchor: { subject: cert.subject, fingerprint: sha256(a.der) },
        };
        break;
      } catch (e) {
        answer = { route, trusted: false, reason: `issuer_untrusted: ${(e as Error).message}` };
      }
    }
    routes.push(answer);
  }
  return { format: 'mso_mdoc', issuer: docType, signer, routes };
}

/** The human summary line the CLI prints before the JSON. */
export function summary(w: WhyTrusted): string {
  const t = w.routes.find((r) => r.trusted);
  if (!t) return `NOT TRUSTED: ${w.format} from ${w.issuer} in ${w.environment}; no route trusts it.`;
  const from = t.trust_list
    ? `trust list "${t.trust_list.name}" (${t.trust_list.id}), entity "${t.entity}"`
    : t.via === 'key'
      ? 'a configured issuer key'
      : 'a configured anchor';
  const cert = t.anchor ? `, certificate ${t.anchor.subject} (sha256 ${t.anchor.fingerprint})` : '';
  return `TRUSTED: ${w.format} from ${w.issuer} in ${w.environment} on route ${t.route} through ${from}${cert}.`;
}
