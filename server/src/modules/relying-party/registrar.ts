// Registrar mode (issue 19, ADR 0034): the service acts as its own CA, Google Wallet's "verifier registrar"
// model, and issues each business, per environment, its own leaf, so a wallet sees who is asking. The leaf
// names the business in its subject (unique per business and environment), keeps the hosted host in its SAN
// (the x509_hash client identifier and the origin checks stay as they are), and carries the non-critical
// extension 1.3.6.1.4.1.11129.10.1 whose value is an ASN.1 OCTET STRING of SHA-256(RelyingPartyMetadataBytes),
// RelyingPartyMetadataBytes = #6.24(bstr .cbor RelyingPartyMetadata) (CDDL of Google's verifier registrar
// guide). The registrar CA key and every business key are sealed in verifier_key like the access keys; a leaf
// is re-issued when the business's metadata changes or the CA is rotated (the old one kept, retired).
import { createHash } from 'node:crypto';
import { cborEncode, DataItem } from '@owf/mdoc';
import * as x509 from '@peculiar/x509';
import { importJWK, type JWK, SignJWT } from 'jose';
import { type DataSource, IsNull } from 'typeorm';
import type { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { transactionWithRetry } from '../../db/data-source';
import { HostedPageSettingsEntity } from '../branding/branding.entity';
import { logoUrlOf } from '../branding/branding.service';
import type { KeySealer } from '../kms/key-sealer';
import { BusinessEntity } from '../tenancy/business.entity';
import { keyAad } from './access-certificate';
import { VerifierChainEntity, VerifierKeyEntity } from './access-certificate.entity';
import { relyingPartyOf } from './relying-party.service';
import {
  cryptoKeyPair,
  DAY_MS,
  identityFrom,
  newSealedKey,
  openSealedJwk,
  SIGNING,
  type VerifierIdentity,
} from './verifier-keys';

export const RP_METADATA_OID = '1.3.6.1.4.1.11129.10.1';
/** JOSE typ of a wallet-relying party registration certificate (ETSI TS 119 475). */
export const RC_WRP_TYP = 'rc-wrp+jwt';
const CA_VALIDITY_DAYS = 3650;
const LEAF_VALIDITY_DAYS = 90;
const RENEW_BEFORE_DAYS = 14;
/** How long an instance uses a business's leaf before it re-reads the registrar and the metadata. */
const RECHECK_MS = 30_000;
/** ETSI TS 119 475 v1.2.1 (ADR 0035 amendment): entitlement, policy, and the service as the intermediary. */
export const RC_ENTITLEMENT_SP = 'https://uri.etsi.org/19475/Entitlement/Service_Provider';
export const RC_POLICY_ID = '0.4.0.19475.3.1';
/** X.520 organizationIdentifier: the EN 319 412-1 semantics identifier the rc-wrp+jwt `sub` must match. */
export const ORGANIZATION_IDENTIFIER_OID = '2.5.4.97';
/**
 * Until relying-party data carries a registered identifier (ADR 0035 amendment, left undone), a business is
 * named by a clearly marked placeholder in EN 319 412-1 form: NTR, the user-assigned country code XX, SANDBOX.
 */
export const placeholderIdentifier = (businessId: string) => `NTRXX-SANDBOX-${businessId}`;

/** DisplayInfo of the CDDL: what a wallet shows for the relying party. */
export interface DisplayInfo {
  display_name: string;
  logo_uri: string;
  privacy_policy_uri: string;
}

/** RelyingPartyMetadataBytes: tag 24 around the CBOR of the map, keys in the CDDL's order. */
export function relyingPartyMetadataBytes(display: DisplayInfo, aggregator?: DisplayInfo): Uint8Array {
  const metadata: Record<string, unknown> = {
    schema_version: 'v1',
    display: {
      display_name: display.display_name,
      logo_uri: display.logo_uri,
      privacy_policy_uri: display.privacy_policy_uri,
    },
  };
  if (aggregator) metadata.aggregator_info = aggregator;
  return cborEncode(DataItem.fromData(metadata));
}

/** DER OCTET STRING of a 32-byte digest (the extension's extnValue content). */
const octetString = (digest: Buffer) => Buffer.concat([Buffer.from([0x04, digest.length]), digest]);

/** Resolves what a wallet should show for a business in an environment. */
export type DisplayResolver = (businessId: string, environment: string) => Promise<DisplayInfo>;

/**
 * The default: the relying-party display name and privacy policy when set (ADR 0035), else the branding
 * display name, else the business's name (the page's one public name, ADR 0052) and an empty policy; the logo.
 */
export function brandingDisplay(ds: DataSource, hostedUrl: string): DisplayResolver {
  return async (businessId, environment) => {
    const business = await ds.getRepository(BusinessEntity).findOneBy({ id: businessId });
    const rp = await relyingPartyOf(ds.manager, businessId, environment);
    const settings = await ds
      .getRepository(HostedPageSettingsEntity)
      .findOneBy({ businessId, environment: environment as 'sandbox' | 'production' });
    return {
      // the hosted page's rule (pageBrandOf, ADR 0052): relying party, else branding, else business name
      display_name: rp.displayName ?? settings?.displayName ?? business?.name ?? businessId,
      logo_uri: settings?.logoSha256 ? `${hostedUrl}${logoUrlOf(settings.logoSha256)}` : '',
      privacy_policy_uri: rp.privacyPolicyUrl ?? '',
    };
  };
}

interface CachedLeaf {
  identity: VerifierIdentity;
  chainId: string;
  metadataSha256: string;
  checkedAt: number;
}

export class Registrar {
  /** Per business and environment, in this instance; re-validated every RECHECK_MS (see cached()). */
  private readonly leaves = new Map<string, CachedLeaf>();
  /** The current CA (or its absence: registrar mode off), re-read every RECHECK_MS; rotateCa() clears it. */
  private ca: { chain: VerifierChainEntity | undefined; checkedAt: number } | undefined;

  constructor(
    private readonly deps: {
      ds: DataSource;
      sealer: KeySealer;
      hostedUrl: string;
      clock: Clock;
      display: DisplayResolver;
    },
  ) {}

  get host(): string {
    return new URL(this.deps.hostedUrl).hostname;
  }

  /** The current registrar CA (its self-signed certificate row), if registrar mode is on. */
  async currentCa(): Promise<VerifierChainEntity | undefined> {
    const now = this.deps.clock.now().getTime();
    if (this.ca && now - this.ca.checkedAt < RECHECK_MS) return this.ca.chain;
    const chain = await this.deps.ds.getRepository(VerifierChainEntity).findOne({
      where: { purpose: 'registrar', host: this.host, retiredAt: IsNull() },
      order: { createdAt: 'DESC' },
    });
    this.ca = { chain: chain ?? undefined, checkedAt: now };
    return chain ?? undefined;
  }

  /** Makes a new registrar CA (first use, or rotation: the old one is retired, leaves re-issue under the new). */
  async rotateCa(): Promise<{ id: string; subject: string; root_pem: string }> {
    const now = this.deps.clock.now();
    const keyId = newId('vk');
    const sealed = await newSealedKey(this.deps.sealer, keyAad(keyId));
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      name: `CN=Verifier Registrar CA for ${this.host}, O=Credential verification service`,
      notBefore: new Date(now.getTime() - 60_000),
      notAfter: new Date(now.getTime() + CA_VALIDITY_DAYS * DAY_MS),
      signingAlgorithm: SIGNING,
      keys: sealed.keys,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(sealed.keys.publicKey),
      ],
    });
    const b64 = Buffer.from(cert.rawData).toString('base64');
    const chain: VerifierChainEntity = {
      id: newId('vch'),
      keyId,
      purpose: 'registrar',
      host: this.host,
      businessId: null,
      environment: null,
      x5c: JSON.stringify([b64]),
      rootCertificate: b64,
      leafSha256: createHash('sha256').update(Buffer.from(cert.rawData)).digest('hex'),
      notBefore: cert.notBefore,
      notAfter: cert.notAfter,
      createdAt: now,
      retiredAt: null,
    };
    await transactionWithRetry(this.deps.ds, async (m) => {
      await m.getRepository(VerifierKeyEntity).insert({
        id: keyId,
        purpose: 'registrar',
        host: this.host,
        businessId: null,
        environment: null,
        publicJwk: JSON.stringify(sealed.publicJwk),
        privateKeyEnc: sealed.privateKeyEnc,
        createdAt: now,
        retiredAt: null,
      });
      await m
        .getRepository(VerifierChainEntity)
        .update({ purpose: 'registrar', host: this.host, retiredAt: IsNull() }, { retiredAt: now });
      await m.getRepository(VerifierChainEntity).insert(chain);
    });
    this.ca = undefined;
    this.leaves.clear();
    return { id: chain.id, subject: cert.subject, root_pem: cert.toString('pem') };
  }

  /**
   * The identity a business's requests in an environment are signed with, or undefined when registrar mode is
   * off. Cached per instance; re-read after RECHECK_MS, re-issued when the metadata or the CA changed.
   */
  async identityFor(businessId: string, environment: string): Promise<VerifierIdentity | undefined> {
    const ca = await this.currentCa();
    if (!ca) return undefined;
    const now = this.deps.clock.now();
    const cacheKey = `${businessId}/${environment}`;
    const hit = this.leaves.get(cacheKey);
    if (hit && now.getTime() - hit.checkedAt < RECHECK_MS && hit.identity.notAfter > now) return hit.identity;
    const display = await this.deps.display(businessId, environment);
    const metadataSha256 = createHash('sha256').update(relyingPartyMetadataBytes(display)).digest('hex');
    if (hit && hit.metadataSha256 === metadataSha256 && hit.identity.rootCertificate === ca.rootCertificate) {
      this.leaves.set(cacheKey, { ...hit, checkedAt: now.getTime() });
      return hit.identity;
    }
    const chain = await this.leafFor(businessId, environment, display, metadataSha256, ca, now);
    const key = await this.deps.ds.getRepository(VerifierKeyEntity).findOneByOrFail({ id: chain.keyId });
    const identity = await identityFrom({
      host: this.host,
      x5c: JSON.parse(chain.x5c) as string[],
      rootCertificate: chain.rootCertificate,
      notAfter: chain.notAfter,
      privateJwk: openSealedJwk(this.deps.sealer, keyAad(key.id), key.privateKeyEnc),
    });
    this.leaves.set(cacheKey, { identity, chainId: chain.id, metadataSha256, checkedAt: now.getTime() });
    return identity;
  }

  /** The business's current leaf if it still matches the metadata and the CA; otherwise a new one. */
  private async leafFor(
    businessId: string,
    environment: string,
    display: DisplayInfo,
    metadataSha256: string,
    ca: VerifierChainEntity,
    now: Date,
  ): Promise<VerifierChainEntity> {
    const repo = this.deps.ds.getRepository(VerifierChainEntity);
    const scope = { purpose: 'business' as const, host: this.host, businessId, environment };
    // the placeholder identifier names sandbox leaves only (their rc-wrp+jwt comes from this registrar); a
    // production leaf carries no organizationIdentifier until the relying party's real one is recorded
    const orgId = environment === 'sandbox' ? placeholderIdentifier(businessId) : '';
    const current = await repo.findOne({
      where: { ...scope, retiredAt: IsNull() },
      order: { createdAt: 'DESC' },
    });
    if (
      current &&
      current.rootCertificate === ca.rootCertificate &&
      current.notAfter.getTime() - RENEW_BEFORE_DAYS * DAY_MS > now.getTime() &&
      extensionDigest(JSON.parse(current.x5c)[0] as string) === metadataSha256 &&
      organizationIdentifierOf(JSON.parse(current.x5c)[0] as string) === orgId
    )
      return current;
    const caKey = await this.deps.ds.getRepository(VerifierKeyEntity).findOneByOrFail({ id: ca.keyId });
    const caKeys = await cryptoKeyPair(
      openSealedJwk(this.deps.sealer, keyAad(caKey.id), caKey.privateKeyEnc) as JWK,
    );
    const caCert = new x509.X509Certificate(Buffer.from(ca.rootCertificate, 'base64'));
    const keyId = newId('vk');
    const sealed = await newSealedKey(this.deps.sealer, keyAad(keyId));
    const leaf = await x509.X509CertificateGenerator.create({
      subject: new x509.Name([
        { CN: [display.display_name] },
        { OU: [environment] },
        { '2.5.4.5': [businessId] }, // serialNumber: unique per business (and, with OU, per environment)
        ...(orgId ? [{ [ORGANIZATION_IDENTIFIER_OID]: [orgId] }] : []), // = the rc-wrp+jwt sub
      ]),
      issuer: caCert.subjectName,
      notBefore: new Date(now.getTime() - 60_000),
      notAfter: new Date(Math.min(now.getTime() + LEAF_VALIDITY_DAYS * DAY_MS, caCert.notAfter.getTime())),
      signingAlgorithm: SIGNING,
      publicKey: sealed.keys.publicKey,
      signingKey: caKeys.privateKey,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: this.host }]),
        await x509.SubjectKeyIdentifierExtension.create(sealed.keys.publicKey),
        await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
        new x509.Extension(RP_METADATA_OID, false, octetString(Buffer.from(metadataSha256, 'hex'))),
      ],
    });
    const row: VerifierChainEntity = {
      id: newId('vch'),
      keyId,
      ...scope,
      x5c: JSON.stringify([Buffer.from(leaf.rawData).toString('base64')]),
      rootCertificate: ca.rootCertificate,
      leafSha256: createHash('sha256').update(Buffer.from(leaf.rawData)).digest('hex'),
      notBefore: leaf.notBefore,
      notAfter: leaf.notAfter,
      createdAt: now,
      retiredAt: null,
    };
    await transactionWithRetry(this.deps.ds, async (m) => {
      await m.getRepository(VerifierKeyEntity).insert({
        id: keyId,
        ...scope,
        publicJwk: JSON.stringify(sealed.publicJwk),
        privateKeyEnc: sealed.privateKeyEnc,
        createdAt: now,
        retiredAt: null,
      });
      await m
        .getRepository(VerifierChainEntity)
        .update({ ...scope, retiredAt: IsNull() }, { retiredAt: now });
      await m.getRepository(VerifierChainEntity).insert(row);
    });
    return row;
  }

  /**
   * The business's registration certificate (ETSI TS 119 475 `rc-wrp+jwt`, ADR 0035) for a request whose
   * client_id is `clientId`, signed by the registrar CA key with x5c = [CA]; undefined when registrar mode is
   * off. Claims per TS 119 475 v1.2.1 (ADR 0035 amendment): sub (the business identifier, = the leaf's
   * organizationIdentifier), country, registry_uri, entitlements, policy_id, intermediary/act (the service),
   * name, sub_ln, privacy_policy, support_uri, purpose, intended_use_id, credentials (the step's DCQL), iat,
   * exp; the JAdES claimed signing time `iat` in the header. The purpose is the workflow's intended use when
   * it has one (ADR 0042), else the business's default purpose.
   */
  async registrationCertificate(
    businessId: string,
    environment: string,
    _clientId: string,
    intendedUse?: { purpose: string; lang: string; identifier?: string } | null,
    dcqlCredentials?: { format: string; meta?: Record<string, unknown>; claims?: { path: unknown[] }[] }[],
    /** Intermediary mode (ADR 0053): the identifier of our signing certificate, as the intermediary's `sub`. */
    intermediarySub?: string,
  ): Promise<string | undefined> {
    const ca = await this.currentCa();
    if (!ca) return undefined;
    const display = await this.deps.display(businessId, environment);
    const rp = await relyingPartyOf(this.deps.ds.manager, businessId, environment);
    const caKey = await this.deps.ds.getRepository(VerifierKeyEntity).findOneByOrFail({ id: ca.keyId });
    const key = await importJWK(
      openSealedJwk(this.deps.sealer, keyAad(caKey.id), caKey.privateKeyEnc),
      'ES256',
    );
    const iat = Math.floor(this.deps.clock.now().getTime() / 1000);
    const service = placeholderIdentifier(`service.${this.host}`);
    const claims: Record<string, unknown> = {
      sub: placeholderIdentifier(businessId),
      name: display.display_name,
      country: 'XX',
      registry_uri: `${this.deps.hostedUrl}/registry`,
      entitlements: [RC_ENTITLEMENT_SP],
      policy_id: [RC_POLICY_ID],
      intermediary: { sub: intermediarySub ?? service, sname: 'Credential verification service' },
      act: { sub: intermediarySub ?? service },
      iat,
      exp: iat + 86_400,
    };
    if (dcqlCredentials?.length)
      claims.credentials = dcqlCredentials.map((c) => ({
        format: c.format,
        meta: c.meta ?? {},
        ...(c.claims?.length ? { claim: c.claims.map((x) => ({ path: x.path })) } : {}),
      }));
    if (rp.legalName) claims.sub_ln = rp.legalName;
    if (display.privacy_policy_uri) claims.privacy_policy = display.privacy_policy_uri;
    if (rp.contactEmail) claims.support_uri = `mailto:${rp.contactEmail}`;
    if (intendedUse) {
      claims.purpose = [{ lang: intendedUse.lang, value: intendedUse.purpose }];
      if (intendedUse.identifier) claims.intended_use_id = intendedUse.identifier;
    } else if (rp.purpose) claims.purpose = [{ lang: 'en', value: rp.purpose }];
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', typ: RC_WRP_TYP, x5c: [ca.rootCertificate], iat })
      .sign(key);
  }

  /** Retires a business's leaf (revocation by the operator): the next request gets a new one. */
  async revokeLeaf(businessId: string, environment: string): Promise<number> {
    const res = await this.deps.ds
      .getRepository(VerifierChainEntity)
      .update(
        { purpose: 'business', host: this.host, businessId, environment, retiredAt: IsNull() },
        { retiredAt: this.deps.clock.now() },
      );
    this.leaves.delete(`${businessId}/${environment}`);
    return res.affected ?? 0;
  }
}

/** Hex digest inside a leaf's RP metadata extension (base64 DER leaf), or '' when it has none. */
export function extensionDigest(leafB64: string): string {
  const ext = new x509.X509Certificate(Buffer.from(leafB64, 'base64')).getExtension(RP_METADATA_OID);
  if (!ext) return '';
  const v = Buffer.from(ext.value);
  return v[0] === 0x04 && v[1] === 32 ? v.subarray(2).toString('hex') : '';
}

/** The organizationIdentifier (2.5.4.97) of a base64 DER certificate's subject, or '' when it has none. */
export function organizationIdentifierOf(certB64: string): string {
  const name = new x509.X509Certificate(Buffer.from(certB64, 'base64')).subjectName;
  return name.getField(ORGANIZATION_IDENTIFIER_OID)[0] ?? '';
}
