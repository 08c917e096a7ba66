// Owns the verifier's request-signing identity (OpenID4VP x509 client identifiers): a local X.509 chain made
// with @peculiar/x509 on first use, root CA -> leaf (SAN dNSName = host of HOSTED_URL, digitalSignature), so
// the signing certificate is never self-signed and the root never travels in `x5c` (HAIP). The root's private
// key is discarded once the leaf is issued; the leaf's P-256 key lives in table verifier_identity, sealed under
// the local master key (a local key table rather than the KMS interface: JAR signing needs JOSE ES256 over
// arbitrary bytes, and the KMS purposes are audit signing and evidence encryption). The client identifier is
// `x509_hash:<base64url SHA-256 of the leaf DER>` (HAIP); `x509_san_dns:<host>` also matches the leaf.
import { createHash, webcrypto } from 'node:crypto';
import { calculateX509HashClientIdPrefixValue } from '@openid4vc/openid4vp';
import * as x509 from '@peculiar/x509';
import { CompactSign, importJWK, type JWK } from 'jose';
import type { DataSource } from 'typeorm';
import type { Clock } from '../../common/clock';
import { isUniqueViolation } from '../../db/data-source';
import type { KeySealer } from './response-encryption';
import { VerifierIdentityEntity } from './verifier-identity.entity';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const LEAF_VALIDITY_DAYS = 365;
const ROOT_VALIDITY_DAYS = 3650;
/** A leaf this close to its end is replaced by a new chain. */
const RENEW_BEFORE_DAYS = 30;
const DAY_MS = 86_400_000;
const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;

export interface VerifierIdentity {
  host: string;
  /** `x509_hash:<base64url sha-256 of the leaf DER>`. */
  clientId: string;
  /** `x509_san_dns:<host>`: the same leaf, named by its SAN. */
  sanDnsClientId: string;
  /** base64 DER, leaf first, without the root. */
  x5c: string[];
  /** base64 DER of the trust anchor. */
  rootCertificate: string;
  /** PEM of the trust anchor, for wallets that want to trust this verifier. */
  rootPem: string;
  notAfter: Date;
  /** Signs a compact JWS with the leaf key (ES256); the caller sets typ and x5c in the header. */
  sign(header: Record<string, unknown>, payload: Record<string, unknown>): Promise<string>;
}

const sha256 = (data: Uint8Array) => new Uint8Array(createHash('sha256').update(data).digest());

export class VerifierIdentityService {
  private cached: VerifierIdentity | undefined;

  constructor(
    private readonly deps: { ds: DataSource; hostedUrl: string; sealer: KeySealer; clock: Clock },
  ) {}

  get host(): string {
    return new URL(this.deps.hostedUrl).hostname;
  }

  /** The current identity for the hosted host, created (and persisted) on first use. */
  async current(): Promise<VerifierIdentity> {
    const now = this.deps.clock.now();
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
    const x5c = JSON.parse(row.x5c) as string[];
    const leafDer = Buffer.from(x5c[0] as string, 'base64');
    const hash = await calculateX509HashClientIdPrefixValue({
      x509Certificate: new Uint8Array(leafDer),
      hash: (data) => sha256(data),
    });
    const jwk = JSON.parse(
      this.deps.sealer.open(`verifier_identity:${row.id}`, row.privateKeyEnc).toString('utf8'),
    ) as JWK;
    const key = await importJWK({ ...jwk, key_ops: undefined, ext: undefined }, 'ES256');
    return {
      host: row.host,
      clientId: `x509_hash:${hash}`,
      sanDnsClientId: `x509_san_dns:${row.host}`,
      x5c,
      rootCertificate: row.rootCertificate,
      rootPem: new x509.X509Certificate(Buffer.from(row.rootCertificate, 'base64')).toString('pem'),
      notAfter: row.notAfter,
      sign: (header, payload) =>
        new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
          .setProtectedHeader({ ...header, alg: 'ES256' })
          .sign(key),
    };
  }
}
