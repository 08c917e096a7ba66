// Owns the verifier's request-signing identity (OpenID4VP x509 client identifiers): a local X.509 chain made
// with @peculiar/x509 on first use, root CA -> leaf (SAN dNSName = host of HOSTED_URL, digitalSignature), so
// the signing certificate is never self-signed and the root never travels in `x5c` (HAIP). The root's private
// key is discarded once the leaf is issued; the leaf's P-256 key lives in table verifier_identity, sealed under
// the local master key (a local key table rather than the KMS interface: JAR signing needs JOSE ES256 over
// arbitrary bytes, and the KMS purposes are audit signing and evidence encryption). The client identifier is
// `x509_hash:<base64url SHA-256 of the leaf DER>` (HAIP); `x509_san_dns:<host>` also matches the leaf.
// An access certificate a real CA issued (access-certificate.ts, imported by the operator) takes precedence over
// the self-made chain, which is for development and the sandbox only: production signs under the imported one.
import { createHash, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { JWK } from 'jose';
import type { DataSource } from 'typeorm';
import type { Clock } from '../../common/clock';
import { AppError } from '../../common/errors';
import { isUniqueViolation } from '../../db/data-source';
import type { KeySealer } from '../kms/key-sealer';
import { AccessCertificates } from './access-certificate';
import { brandingDisplay, type DisplayResolver, Registrar } from './registrar';
import { BusinessCertificates, type SpeakingMode } from './speaking';
import { VerifierIdentityEntity } from './verifier-identity.entity';
import { DAY_MS, EC, identityFrom, SIGNING, type VerifierIdentity } from './verifier-keys';

export type { VerifierIdentity } from './verifier-keys';

const LEAF_VALIDITY_DAYS = 365;
const ROOT_VALIDITY_DAYS = 3650;
/** A leaf this close to its end is replaced by a new chain. */
const RENEW_BEFORE_DAYS = 30;
/** How long an instance signs under the imported chain it read before it looks for a newer one (rotation). */
const IMPORTED_RECHECK_MS = 30_000;

export class VerifierIdentityService {
  private cached: VerifierIdentity | undefined;
  /** The imported chain's identity, re-read every IMPORTED_RECHECK_MS (a newer import takes over). */
  private imported:
    | { identity: VerifierIdentity | undefined; chainId: string; checkedAt: number }
    | undefined;
  readonly accessCertificates: AccessCertificates;
  readonly registrar: Registrar;
  /** Businesses' own access certificates (the business-certificate mode, ADR 0053). */
  readonly businessCertificates: BusinessCertificates;

  constructor(
    private readonly deps: {
      ds: DataSource;
      hostedUrl: string;
      sealer: KeySealer;
      clock: Clock;
      /** Production signs only under an imported access certificate, never under the self-made root. */
      production?: boolean;
      /** What registrar-mode leaves show for a business (default: its name and branding logo). */
      display?: DisplayResolver;
    },
  ) {
    this.accessCertificates = new AccessCertificates(deps);
    this.businessCertificates = new BusinessCertificates(deps);
    this.registrar = new Registrar({
      ...deps,
      display: deps.display ?? brandingDisplay(deps.ds, deps.hostedUrl),
    });
  }

  /**
   * The identity a business's requests are signed with: in registrar mode its own leaf (ADR 0034), otherwise
   * the service's (current()).
   */
  async forBusiness(business: { id: string; environment: string } | undefined): Promise<VerifierIdentity> {
    const leaf = business ? await this.registrar.identityFor(business.id, business.environment) : undefined;
    return leaf ?? this.current();
  }

  /**
   * The identity under a route's speaking mode (ADR 0053): intermediary, our access certificate;
   * business-certificate, the business's own (business_certificate_missing when none is valid now); no mode,
   * forBusiness().
   */
  async forSpeaking(
    business: { id: string; environment: string } | undefined,
    mode: SpeakingMode | undefined,
  ): Promise<VerifierIdentity> {
    if (!business || !mode) return this.forBusiness(business);
    if (mode === 'intermediary') return this.current();
    const own = await this.businessCertificates.identityFor(business.id, business.environment);
    if (own) return own;
    throw new AppError(
      'business_certificate_missing',
      `This route speaks with the business's own access certificate, and none is valid for ${business.environment} (pnpm operator business-cert).`,
    );
  }

  /**
   * Which of the business's possible signers a stored request's client_id names (a POST to request_uri signs
   * again as the first object did, whatever the route's mode is now); the default signer when none does.
   */
  async signerNamed(
    clientId: unknown,
    business: { id: string; environment: string },
  ): Promise<VerifierIdentity> {
    const fallback = await this.forBusiness(business);
    if (fallback.clientId === clientId) return fallback;
    const own = await this.businessCertificates.identityFor(business.id, business.environment);
    if (own && own.clientId === clientId) return own;
    const ours = await this.current().catch(() => undefined);
    return ours && ours.clientId === clientId ? ours : fallback;
  }

  /** Base64 DER roots a wallet needs to trust our requests: the service's, and the registrar CA's if on. */
  async trustedRoots(): Promise<string[]> {
    const ca = await this.registrar.currentCa();
    return [(await this.current()).rootCertificate, ...(ca ? [ca.rootCertificate] : [])];
  }

  get host(): string {
    return new URL(this.deps.hostedUrl).hostname;
  }

  /**
   * The current identity for the hosted host: the imported access certificate when one is valid; otherwise
   * (development and sandbox-only deployments) the self-made chain, created and persisted on first use.
   */
  async current(): Promise<VerifierIdentity> {
    const now = this.deps.clock.now();
    const imported = await this.importedIdentity(now);
    if (imported) return imported;
    if (this.deps.production)
      throw new AppError(
        'access_certificate_missing',
        `No currently valid access certificate for ${this.host} (pnpm operator verifier-key import-chain).`,
      );
    return this.local(now);
  }

  /** Refuses a production start without an imported, currently valid chain for the production host. */
  async assertProductionReady(): Promise<void> {
    if (await this.accessCertificates.current(this.deps.clock.now())) return;
    throw new Error(
      `Refusing to start in production: no imported, currently valid access certificate for ${this.host} ` +
        '(the host of HOSTED_URL). The self-made verifier root is for development and the sandbox only. ' +
        'Run `pnpm operator verifier-key create`, `pnpm operator verifier-key csr`, have a CA issue the ' +
        'certificate, then `pnpm operator verifier-key import-chain --pem <chain.pem>`.',
    );
  }

  private async importedIdentity(now: Date): Promise<VerifierIdentity | undefined> {
    const seen = this.imported;
    if (
      seen &&
      now.getTime() - seen.checkedAt < IMPORTED_RECHECK_MS &&
      (!seen.identity || seen.identity.notAfter > now)
    )
      return seen.identity;
    const current = await this.accessCertificates.current(now);
    if (!current) {
      this.imported = { identity: undefined, chainId: '', checkedAt: now.getTime() };
      return undefined;
    }
    if (seen?.identity && seen.chainId === current.chain.id) {
      this.imported = { ...seen, checkedAt: now.getTime() };
      return seen.identity;
    }
    const identity = await identityFrom({
      host: current.chain.host,
      x5c: JSON.parse(current.chain.x5c) as string[],
      rootCertificate: current.chain.rootCertificate,
      notAfter: current.chain.notAfter,
      privateJwk: current.privateJwk,
    });
    this.imported = { identity, chainId: current.chain.id, checkedAt: now.getTime() };
    return identity;
  }

  private async local(now: Date): Promise<VerifierIdentity> {
    if (this.cached && this.cached.notAfter.getTime() - RENEW_BEFORE_DAYS * DAY_MS > now.getTime()) {
      return this.cached;
    }
    const repo = this.deps.ds.getRepository(VerifierIdentityEntity);
    const id = `vid_${createHash('sha256').update(this.host).digest('hex').slice(0, 32)}`;
    let row = await repo.findOneBy({ id });
    if (row && row.notAfter.getTime() - RENEW_BEFORE_DAYS * DAY_MS <= now.getTime()) {
      const fresh = await this.generate(id, now);
      // conditional on the old chain, so concurrent renewals keep exactly one
      await repo.update({ id, notAfter: row.notAfter }, fresh);
      row = await repo.findOneBy({ id });
    }
    if (!row) {
      try {
        await repo.insert(await this.generate(id, now));
      } catch (e) {
        if (!isUniqueViolation(e)) throw e;
      }
      row = await repo.findOneBy({ id });
    }
    if (!row) throw new Error('could not establish the verifier identity');
    this.cached = await this.toIdentity(row);
    return this.cached;
  }

  private async generate(id: string, now: Date): Promise<VerifierIdentityEntity> {
    const notBefore = new Date(now.getTime() - 60_000);
    const rootKeys = await webcrypto.subtle.generateKey(EC, false, ['sign', 'verify']);
    const root = await x509.X509CertificateGenerator.createSelfSigned({
      name: `CN=Verifier Root CA (local) for ${this.host}, O=Credential verification service`,
      notBefore,
      notAfter: new Date(now.getTime() + ROOT_VALIDITY_DAYS * DAY_MS),
      signingAlgorithm: SIGNING,
      keys: rootKeys as unknown as CryptoKeyPair,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey as unknown as CryptoKey),
      ],
    });
    const leafKeys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
    const notAfter = new Date(now.getTime() + LEAF_VALIDITY_DAYS * DAY_MS);
    const leaf = await x509.X509CertificateGenerator.create({
      subject: `CN=${this.host}, O=Credential verification service`,
      issuer: root.subject,
      notBefore,
      notAfter,
      signingAlgorithm: SIGNING,
      publicKey: leafKeys.publicKey as unknown as CryptoKey,
      signingKey: rootKeys.privateKey as unknown as CryptoKey,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: this.host }]),
        await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey as unknown as CryptoKey),
        await x509.AuthorityKeyIdentifierExtension.create(rootKeys.publicKey as unknown as CryptoKey),
      ],
    });
    const privateJwk = await webcrypto.subtle.exportKey('jwk', leafKeys.privateKey);
    return Object.assign(new VerifierIdentityEntity(), {
      id,
      host: this.host,
      x5c: JSON.stringify([Buffer.from(leaf.rawData).toString('base64')]),
      rootCertificate: Buffer.from(root.rawData).toString('base64'),
      privateKeyEnc: this.deps.sealer.seal(
        `verifier_identity:${id}`,
        Buffer.from(JSON.stringify(privateJwk)),
      ),
      notAfter,
      createdAt: now,
    } satisfies VerifierIdentityEntity);
  }

  private async toIdentity(row: VerifierIdentityEntity): Promise<VerifierIdentity> {
    return identityFrom({
      host: row.host,
      x5c: JSON.parse(row.x5c) as string[],
      rootCertificate: row.rootCertificate,
      notAfter: row.notAfter,
      privateJwk: JSON.parse(
        this.deps.sealer.open(`verifier_identity:${row.id}`, row.privateKeyEnc).toString('utf8'),
      ) as JWK,
    });
  }
}
