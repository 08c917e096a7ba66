// Owns the reader certificates of ISO 18013-5 reader authentication (issue 26, ADR 0049): the operator makes a
// P-256 key for the hosted domain (sealed in verifier_key, purpose 'reader'), hands its CSR (CN = the domain) to
// the wallet ecosystem (Apple Business for Verify with Wallet on the Web), and imports the certificate it returns
// for one credential route and environment after checks with stable codes (chain links, key is ours, CN/SAN names
// the domain, every certificate valid now). Every current certificate of a step's routes signs the Annex C
// readerAuthAll; a newer import does not retire the older one (both sign until the operator retires it), so a
// rotation has no gap. Expiry within 30 days is reported to /readyz as a warning.
import { createHash } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { JWK } from 'jose';
import { type DataSource, In, IsNull } from 'typeorm';
import type { Clock } from '../../common/clock';
import { AppError } from '../../common/errors';
import { newId } from '../../common/ids';
import type { Environment } from '../../config/config';
import { isUniqueViolation } from '../../db/data-source';
import type { KeySealer } from '../kms/key-sealer';
import type { ReaderSigner } from '../verification/mdoc/annex-c-reader-auth';
import { requireRoute } from '../verification/trust';
import { VerifierKeyEntity } from './access-certificate.entity';
import { ReaderCertificateEntity } from './reader-certificate.entity';
import { DAY_MS, newSealedKey, openSealedJwk, SIGNING, spkiOfJwk } from './verifier-keys';

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
const keyAad = (id: string) => `verifier_key:${id}`;
/** /readyz warns this long before a current reader certificate expires. */
export const READER_CERT_WARN_DAYS = 30;

export interface ReaderCertView {
  id: string;
  key_id: string;
  route: string;
  environment: string;
  domain: string;
  per_document: boolean;
  subject: string;
  issuer: string;
  not_before: string;
  not_after: string;
  days_left: number;
  leaf_sha256: string;
  imported: string;
  retired: string | null;
}

/** Does the leaf name `host` in its CN or a SAN dNSName? */
function namesHost(leaf: x509.X509Certificate, host: string): boolean {
  const h = host.toLowerCase();
  const cn = leaf.subjectName.getField('CN').map((v) => v.toLowerCase());
  const san = leaf.getExtension(x509.SubjectAlternativeNameExtension);
  const dns = (san?.names.toJSON() ?? []).filter((n) => n.type === 'dns').map((n) => n.value.toLowerCase());
  return cn.includes(h) || dns.includes(h);
}

export class ReaderCertificates {
  constructor(
    private readonly deps: { ds: DataSource; sealer: KeySealer; hostedUrl: string; clock: Clock },
  ) {}

  get domain(): string {
    return new URL(this.deps.hostedUrl).hostname;
  }

  /**
   * A new P-256 reader key for the hosted domain and its PKCS#10 CSR: CN = the domain (Apple: "the FQDN"),
   * SAN dNSName = the domain, optional O and C. RSA is not offered: reader authentication is ECDSA (ADR 0049).
   */
  async csr(
    environment: Environment,
    opts: { organization?: string; country?: string } = {},
  ): Promise<{ key_id: string; domain: string; environment: string; pem: string }> {
    const id = newId('vk');
    const { publicJwk, privateKeyEnc, keys } = await newSealedKey(this.deps.sealer, keyAad(id));
    await this.deps.ds.getRepository(VerifierKeyEntity).insert({
      id,
      purpose: 'reader',
      host: this.domain,
      businessId: null,
      environment,
      publicJwk: JSON.stringify(publicJwk),
      privateKeyEnc,
      createdAt: this.deps.clock.now(),
      retiredAt: null,
    });
    const rdn = [`CN=${this.domain}`];
    if (opts.organization) rdn.push(`O=${opts.organization.replace(/[,+="<>#;\\]/g, ' ')}`);
    if (opts.country)
      rdn.push(
        `C=${opts.country
          .replace(/[^A-Za-z]/g, '')
          .slice(0, 2)
          .toUpperCase()}`,
      );
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({
      name: rdn.join(', '),
      keys,
      signingAlgorithm: SIGNING,
      extensions: [
        new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: this.domain }]),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      ],
    });
    return { key_id: id, domain: this.domain, environment, pem: csr.toString('pem') };
  }

  /** Checks the PEM (leaf first, then its issuers; a self-signed root may end it) and stores it for the route. */
  async import(input: {
    pem: string;
    routeId: string;
    environment: Environment;
    perDocument?: boolean;
  }): Promise<ReaderCertView> {
    const now = this.deps.clock.now();
    await requireRoute(this.deps.ds, input.routeId);
    const certs = this.parse(input.pem);
    const leaf = certs[0] as x509.X509Certificate;
    const keys = await this.deps.ds
      .getRepository(VerifierKeyEntity)
      .findBy({ purpose: 'reader', environment: input.environment, retiredAt: IsNull() });
    const key = keys.find((k) =>
      spkiOfJwk(JSON.parse(k.publicJwk) as JWK).equals(Buffer.from(leaf.publicKey.rawData)),
    );
    if (!key)
      throw new AppError(
        'reader_cert_key_mismatch',
        `The certificate's key is not a ${input.environment} reader key of ours (make one with \`reader-cert csr\`).`,
      );
    if (!namesHost(leaf, this.domain))
      throw new AppError('reader_cert_domain_mismatch', `The certificate does not name ${this.domain}.`);
    await this.checkChain(certs);
    for (const c of certs) {
      if (c.notAfter.getTime() <= now.getTime())
        throw new AppError('reader_cert_expired', `${c.subject} expired ${c.notAfter.toISOString()}.`);
      if (c.notBefore.getTime() > now.getTime())
        throw new AppError(
          'reader_cert_not_yet_valid',
          `${c.subject} is valid from ${c.notBefore.toISOString()}.`,
        );
    }
    const last = certs[certs.length - 1] as x509.X509Certificate;
    const chain = (await last.isSelfSigned()) ? certs.slice(0, -1) : certs;
    const row: ReaderCertificateEntity = {
      id: newId('rdc'),
      keyId: key.id,
      routeId: input.routeId,
      environment: input.environment,
      domain: this.domain,
      perDocument: input.perDocument === true,
      x5chain: JSON.stringify(chain.map((c) => Buffer.from(c.rawData).toString('base64'))),
      leafSha256: createHash('sha256').update(Buffer.from(leaf.rawData)).digest('hex'),
      notBefore: new Date(Math.max(...certs.map((c) => c.notBefore.getTime()))),
      notAfter: new Date(Math.min(...certs.map((c) => c.notAfter.getTime()))),
      createdAt: now,
      retiredAt: null,
    };
    try {
      await this.deps.ds.getRepository(ReaderCertificateEntity).insert(row);
    } catch (e) {
      if (isUniqueViolation(e))
        throw new AppError('reader_cert_already_imported', 'This reader certificate was imported before.');
      throw e;
    }
    return this.view(row, now);
  }

  private parse(pem: string): x509.X509Certificate[] {
    const blocks = pem.match(PEM_BLOCK) ?? [];
    if (blocks.length === 0)
      throw new AppError('reader_cert_chain_invalid', 'Give the certificate and its issuers as PEM.');
    try {
      return blocks.map((b) => new x509.X509Certificate(b));
    } catch (e) {
      throw new AppError('reader_cert_chain_invalid', 'A certificate of the PEM does not parse.', {
        cause: e,
      });
    }
  }

  /** leaf <- issuer <- …: each certificate signed by the next, each issuer a CA; at least one issuer. */
  private async checkChain(certs: x509.X509Certificate[]): Promise<void> {
    const invalid = (why: string) => new AppError('reader_cert_chain_invalid', why);
    if (certs.length < 2) throw invalid('Give the certificate and the certificate(s) that issued it.');
    if (await (certs[0] as x509.X509Certificate).isSelfSigned())
      throw invalid('The reader certificate is self-signed.');
    for (let i = 0; i + 1 < certs.length; i++) {
      const c = certs[i] as x509.X509Certificate;
      const issuer = certs[i + 1] as x509.X509Certificate;
      const signed =
        c.issuer === issuer.subject && (await c.verify({ publicKey: issuer.publicKey, signatureOnly: true }));
      if (!signed) throw invalid(`${issuer.subject} did not sign ${c.subject}.`);
      if (!issuer.getExtension(x509.BasicConstraintsExtension)?.ca)
        throw invalid(`${issuer.subject} is not a CA certificate.`);
    }
  }

  /** Stops a certificate signing (rotation: import the new one first, then retire the old one). */
  async retire(id: string): Promise<ReaderCertView> {
    const repo = this.deps.ds.getRepository(ReaderCertificateEntity);
    const row = await repo.findOneBy({ id, retiredAt: IsNull() });
    if (!row) throw new AppError('not_found', `No current reader certificate ${id}.`);
    const now = this.deps.clock.now();
    await repo.update({ id }, { retiredAt: now });
    return this.view({ ...row, retiredAt: now }, now);
  }

  async list(): Promise<ReaderCertView[]> {
    const now = this.deps.clock.now();
    const rows = await this.deps.ds
      .getRepository(ReaderCertificateEntity)
      .find({ order: { createdAt: 'ASC' } });
    return rows.map((r) => this.view(r, now));
  }

  /** Current certificates that expire within READER_CERT_WARN_DAYS (or have expired): /readyz warnings. */
  async expiring(now: Date): Promise<ReaderCertView[]> {
    const rows = await this.deps.ds.getRepository(ReaderCertificateEntity).findBy({ retiredAt: IsNull() });
    return rows
      .filter((r) => r.notAfter.getTime() - now.getTime() < READER_CERT_WARN_DAYS * DAY_MS)
      .map((r) => this.view(r, now));
  }

  /**
   * Who signs an Annex C request whose step may be answered through `routes` in `environment`: every current
   * certificate of those routes valid at `now` (readerAuthAll), and the first that asks for per-document readerAuth.
   */
  async signersFor(
    routes: readonly string[],
    environment: string,
    now: Date,
  ): Promise<{ all: ReaderSigner[]; perDocument?: ReaderSigner }> {
    if (routes.length === 0) return { all: [] };
    const rows = (
      await this.deps.ds.getRepository(ReaderCertificateEntity).find({
        where: { routeId: In([...routes]), environment, retiredAt: IsNull() },
        order: { createdAt: 'ASC' },
      })
    ).filter((r) => r.notBefore <= now && r.notAfter > now);
    if (rows.length === 0) return { all: [] };
    const keys = await this.deps.ds
      .getRepository(VerifierKeyEntity)
      .findBy({ id: In([...new Set(rows.map((r) => r.keyId))]) });
    const signers = rows.flatMap((r) => {
      const key = keys.find((k) => k.id === r.keyId);
      if (!key) return [];
      const signer: ReaderSigner = {
        x5chain: (JSON.parse(r.x5chain) as string[]).map((b) => new Uint8Array(Buffer.from(b, 'base64'))),
        privateJwk: openSealedJwk(this.deps.sealer, keyAad(key.id), key.privateKeyEnc),
      };
      return [{ row: r, signer }];
    });
    // the same certificate signs readerAuthAll once, even when two of the step's routes share it
    const unique = [...new Map(signers.map((s) => [s.row.leafSha256, s])).values()];
    return {
      all: unique.map((s) => s.signer),
      perDocument: unique.find((s) => s.row.perDocument)?.signer,
    };
  }

  private view(r: ReaderCertificateEntity, now: Date): ReaderCertView {
    const leaf = new x509.X509Certificate(
      Buffer.from((JSON.parse(r.x5chain) as string[])[0] as string, 'base64'),
    );
    return {
      id: r.id,
      key_id: r.keyId,
      route: r.routeId,
      environment: r.environment,
      domain: r.domain,
      per_document: r.perDocument,
      subject: leaf.subject,
      issuer: leaf.issuer,
      not_before: r.notBefore.toISOString(),
      not_after: r.notAfter.toISOString(),
      days_left: Math.floor((r.notAfter.getTime() - now.getTime()) / DAY_MS),
      leaf_sha256: r.leafSha256,
      imported: r.createdAt.toISOString(),
      retired: r.retiredAt?.toISOString() ?? null,
    };
  }
}

/** The /readyz warnings of reader certificates: one line per current certificate expiring within 30 days. */
export async function readerCertWarnings(certs: ReaderCertificates, now: Date): Promise<string[]> {
  return (await certs.expiring(now)).map((c) =>
    c.days_left < 0
      ? `reader_cert_expired: ${c.id} (${c.route}, ${c.environment}) expired ${c.not_after}`
      : `reader_cert_expiring: ${c.id} (${c.route}, ${c.environment}) expires ${c.not_after} (${c.days_left} days)`,
  );
}
