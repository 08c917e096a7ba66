// Registration certificates the operator imports per business and environment (issue 19, ADR 0040): an
// ETSI TS 119 475 `rc-wrp+jwt` a registrar issued for the business, checked at import and then sent in
// OpenID4VP `verifier_info` of the business's requests (production only when the operator enables it). The
// checks, each with a stable code: typ, a signature under an operator-configured registrar trust anchor (the
// x5c signer is an anchor, or a current certificate an anchor issued), current (exp required), `sub` is the
// client_id the service signs this business's requests with (the rule the sandbox wallet checks), and it names
// the business (name or sub_ln equal to the business's name, relying-party display or legal name).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import * as x509 from '@peculiar/x509';
import { compactVerify, decodeProtectedHeader, importX509 } from 'jose';
import { type DataSource, type EntityManager, IsNull, MoreThan } from 'typeorm';
import type { Clock } from '../../common/clock';
import { AppError, type ErrorCode } from '../../common/errors';
import { newId } from '../../common/ids';
import { transactionWithRetry } from '../../db/data-source';
import { BusinessEntity } from '../tenancy/business.entity';
import { RC_WRP_TYP } from './registrar';
import { RegistrationCertificateEntity } from './registration-certificate.entity';
import { relyingPartyOf } from './relying-party.service';

type Json = Record<string, unknown>;
type Env = 'sandbox' | 'production';

const fail = (code: ErrorCode, detail: string, cause?: unknown): never => {
  throw new AppError(code, detail, { cause });
};
const pem = (b64Der: string) => `-----BEGIN CERTIFICATE-----\n${b64Der}\n-----END CERTIFICATE-----`;

/**
 * The `sub` a registration certificate must carry to belong to the requests a leaf signs: the leaf's subject
 * organizationIdentifier (ETSI TS 119 475 v1.2.1: the relying party's identifier, as registrar-mode sandbox
 * leaves carry it), or, for a leaf without one, the request's client_id (ADR 0035's first rule). The import and
 * the sandbox wallet apply this one rule, so a certificate the import accepts is one the wallet accepts.
 */
export function registrationSubjectFor(leafB64: string, clientId: string): string {
  const leaf = new x509.X509Certificate(Buffer.from(leafB64, 'base64'));
  return leaf.subjectName.getField('2.5.4.97')[0] || clientId;
}

/**
 * What is wrong with a verified rc-wrp+jwt's claims (ETSI TS 119 475 v1.2.1, ADR 0035 amendment), or undefined:
 * `'sub'` when it names another relying party than `subject`; otherwise a phrase ("lacks country"). The import
 * and the sandbox wallet apply this one rule.
 */
export function registrationClaimsProblem(
  rc: Record<string, unknown>,
  subject: string,
  now: Date,
): string | undefined {
  const str = (v: unknown) => typeof v === 'string' && v.length > 0;
  for (const name of ['sub', 'name', 'registry_uri']) if (!str(rc[name])) return `lacks ${name}`;
  if (typeof rc.country !== 'string' || !/^[A-Z]{2}$/.test(rc.country)) return 'lacks country';
  if (!Array.isArray(rc.entitlements) || rc.entitlements.length === 0 || !rc.entitlements.every(str))
    return 'lacks entitlements';
  if (!Number.isInteger(rc.iat)) return 'lacks iat';
  const im = rc.intermediary as Record<string, unknown> | undefined;
  // the signer is the relying party itself, or (intermediary mode, ADR 0053) the intermediary acting for it
  if (rc.sub !== subject && im?.sub !== subject) return 'sub';
  if (im !== undefined && (!str(im?.sub) || !str(im?.sname))) return 'intermediary needs sub and sname';
  if (typeof rc.exp === 'number' && rc.exp - (rc.iat as number) > 366 * 86_400)
    return 'is valid for more than 12 months';
  if (typeof rc.exp === 'number' && rc.exp <= Math.floor(now.getTime() / 1000)) return 'has expired';
  return undefined;
}

/** The certificates of a PEM bundle as base64 DER (the registrar trust anchors file). */
export function anchorsFromPem(bundle: string): string[] {
  return [...bundle.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/g)].map((m) =>
    (m[1] ?? '').replace(/\s+/g, ''),
  );
}

/**
 * The anchor (base64 DER) a registration certificate's x5c signer is, or that issued it (signature checked,
 * signer current); undefined when neither. The import and the sandbox wallet apply the same rule.
 */
export async function anchorOf(
  signer: x509.X509Certificate,
  anchors: string[],
  now: Date,
): Promise<string | undefined> {
  const der = Buffer.from(signer.rawData);
  for (const a of anchors) {
    if (Buffer.from(a, 'base64').equals(der)) return a;
    const anchor = new x509.X509Certificate(Buffer.from(a, 'base64'));
    if (anchor.subject !== signer.issuer) continue;
    if (signer.notBefore > now || signer.notAfter < now) continue;
    if (await signer.verify({ publicKey: anchor, signatureOnly: true })) return a;
  }
  return undefined;
}

/** The registrar trust anchors of the configuration (a PEM file), read once at start. */
export function loadRegistrationAnchors(file: string | undefined): string[] {
  if (!file) return [];
  let bundle: string;
  try {
    bundle = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`REGISTRATION_CERT_ANCHORS_FILE cannot be read: ${file}`, { cause: e });
  }
  const anchors = anchorsFromPem(bundle);
  if (anchors.length === 0) throw new Error(`REGISTRATION_CERT_ANCHORS_FILE has no certificate: ${file}`);
  return anchors;
}

export interface RegistrationCertView {
  id: string;
  business_id: string;
  environment: Env;
  sub: string;
  name: string;
  anchor_sha256: string;
  expires_at: string;
  created_at: string;
  revoked_at: string | null;
}

const view = (r: RegistrationCertificateEntity): RegistrationCertView => ({
  id: r.id,
  business_id: r.businessId,
  environment: r.environment,
  sub: r.sub,
  name: r.name,
  anchor_sha256: r.anchorSha256,
  expires_at: r.expiresAt.toISOString(),
  created_at: r.createdAt.toISOString(),
  revoked_at: r.revokedAt?.toISOString() ?? null,
});

export class RegistrationCertificates {
  constructor(
    private readonly deps: {
      ds: DataSource;
      clock: Clock;
      /** Base64 DER registrar trust anchors (REGISTRATION_CERT_ANCHORS_FILE); none: every import refused. */
      anchors: string[];
      /** The signer of this business's requests in this environment now: client_id and leaf (base64 DER). */
      signerFor: (businessId: string, environment: Env) => Promise<{ clientId: string; leaf: string }>;
    },
  ) {}

  /** Checks and stores `jwt` as the business's current certificate; `audit` runs in the same transaction. */
  async import(
    businessId: string,
    environment: Env,
    jwt: string,
    audit: (m: EntityManager, row: RegistrationCertView) => Promise<void>,
  ): Promise<RegistrationCertView> {
    const business = await this.deps.ds.getRepository(BusinessEntity).findOneBy({ id: businessId });
    if (!business) throw new AppError('not_found', 'No business with that id.');
    const now = this.deps.clock.now();
    const token = jwt.trim();
    const { claims, anchorSha256 } = await this.verify(token, now);
    const signer = await this.deps.signerFor(businessId, environment);
    const subject = registrationSubjectFor(signer.leaf, signer.clientId);
    const problem = registrationClaimsProblem(claims, subject, now);
    if (problem === 'sub')
      fail(
        'registration_cert_client_mismatch',
        `sub must be ${subject}, naming the signer of this business's ${environment} requests.`,
      );
    if (problem) fail('registration_cert_invalid', `The certificate ${problem} (ETSI TS 119 475 v1.2.1).`);
    const rp = await relyingPartyOf(this.deps.ds.manager, businessId, environment);
    const names = [business.name, rp.displayName, rp.legalName].filter((n): n is string => !!n);
    if (!names.includes(String(claims.name)) && !names.includes(String(claims.sub_ln)))
      fail('registration_cert_business_mismatch', `name or sub_ln must be one of: ${names.join(', ')}.`);
    const row: RegistrationCertificateEntity = {
      id: newId('rcert'),
      businessId,
      environment,
      jwt: token,
      sub: subject,
      name: String(claims.name),
      anchorSha256,
      expiresAt: new Date((claims.exp as number) * 1000),
      createdAt: now,
      revokedAt: null,
    };
    await transactionWithRetry(this.deps.ds, async (m) => {
      const repo = m.getRepository(RegistrationCertificateEntity);
      await repo.update({ businessId, environment, revokedAt: IsNull() }, { revokedAt: now });
      await repo.insert(row);
      await audit(m, view(row));
    });
    return view(row);
  }

  /** typ, signature under a trust anchor, time: the claims and which anchor it chained to. */
  private async verify(token: string, now: Date): Promise<{ claims: Json; anchorSha256: string }> {
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch (e) {
      return fail('registration_cert_invalid', 'Not a compact JWS.', e);
    }
    if (header.typ !== RC_WRP_TYP) fail('registration_cert_typ', `typ is ${String(header.typ)}.`);
    const x5c = Array.isArray(header.x5c) ? header.x5c : [];
    if (header.alg !== 'ES256' || typeof x5c[0] !== 'string')
      fail('registration_cert_invalid', 'It needs alg ES256 and the signer in x5c.');
    let signer: x509.X509Certificate;
    try {
      signer = new x509.X509Certificate(Buffer.from(x5c[0] as string, 'base64'));
    } catch (e) {
      return fail('registration_cert_invalid', 'x5c[0] is not a certificate.', e);
    }
    const anchor = await anchorOf(signer, this.deps.anchors, now);
    if (!anchor)
      return fail('registration_cert_untrusted', 'x5c does not chain to a registrar trust anchor.');
    let claims: Json;
    try {
      const verified = await compactVerify(token, await importX509(pem(x5c[0] as string), 'ES256'), {
        algorithms: ['ES256'],
      });
      claims = JSON.parse(new TextDecoder().decode(verified.payload)) as Json;
    } catch (e) {
      return fail('registration_cert_untrusted', 'The signature does not verify under x5c.', e);
    }
    const secs = Math.floor(now.getTime() / 1000);
    if (typeof claims.exp !== 'number' || claims.exp <= secs || claims.exp > 253_402_300_799)
      fail('registration_cert_expired', 'exp is missing or past.');
    if (typeof claims.nbf === 'number' && claims.nbf > secs + 60)
      fail('registration_cert_expired', 'nbf is in the future.');
    if (typeof claims.sub !== 'string') fail('registration_cert_client_mismatch', 'sub is missing.');
    return { claims, anchorSha256: createHash('sha256').update(Buffer.from(anchor, 'base64')).digest('hex') };
  }

  /** Every certificate (current and revoked), newest first; optionally of one business. */
  async list(businessId?: string): Promise<RegistrationCertView[]> {
    const rows = await this.deps.ds.getRepository(RegistrationCertificateEntity).find({
      where: businessId ? { businessId } : {},
      order: { createdAt: 'DESC' },
    });
    return rows.map(view);
  }

  /** Revokes the business's current certificate; requests stop carrying it at once. */
  async revoke(
    businessId: string,
    environment: Env,
    audit: (m: EntityManager, ids: string[]) => Promise<void>,
  ): Promise<{ revoked: string[] }> {
    const now = this.deps.clock.now();
    return transactionWithRetry(this.deps.ds, async (m) => {
      const repo = m.getRepository(RegistrationCertificateEntity);
      const current = await repo.findBy({ businessId, environment, revokedAt: IsNull() });
      if (current.length === 0)
        throw new AppError('not_found', 'That business has no current registration certificate here.');
      await repo.update({ businessId, environment, revokedAt: IsNull() }, { revokedAt: now });
      const ids = current.map((r) => r.id);
      await audit(m, ids);
      return { revoked: ids };
    });
  }

  /**
   * The certificate a request of the business carries: the current one, unexpired, whose sub is `subject`
   * (registrationSubjectFor of the request's signer; a wallet would refuse any other); undefined when none.
   */
  async forRequest(businessId: string, environment: Env, subject: string): Promise<string | undefined> {
    const row = await this.deps.ds.getRepository(RegistrationCertificateEntity).findOne({
      where: {
        businessId,
        environment,
        revokedAt: IsNull(),
        sub: subject,
        expiresAt: MoreThan(this.deps.clock.now()),
      },
      order: { createdAt: 'DESC' },
    });
    return row?.jwt;
  }
}
