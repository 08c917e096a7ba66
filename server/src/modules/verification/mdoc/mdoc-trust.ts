// Owns mdoc issuer trust: which IACA root certificates are trusted for a docType in an environment (table
// mdoc_trust_anchor), and their registration (idempotent: one row per environment, docType and certificate).
import { createHash } from 'node:crypto';
import { X509Certificate } from '@peculiar/x509';
import type { DataSource } from 'typeorm';
import type { Environment } from '../../../config/config';
import { sql } from '../../../db/fast-sql';
import { MdocTrustAnchorEntity } from './mdoc-trust-anchor.entity';

export class MdocTrustStore {
  /** DER of each stored PEM already read (by the PEM text itself; a certificate's PEM never changes meaning). */
  private readonly ders = new Map<string, Uint8Array>();

  constructor(private readonly ds: DataSource) {}

  private derOf(pem: string): Uint8Array {
    const hit = this.ders.get(pem);
    if (hit) return hit;
    const der = new Uint8Array(new X509Certificate(pem).rawData);
    if (this.ders.size >= 256) this.ders.delete(this.ders.keys().next().value as string);
    this.ders.set(pem, der);
    return der;
  }

  /** DER certificates of the IACAs trusted for `doctype` in `environment` (empty: nobody is trusted). */
  async anchors(environment: Environment, doctype: string): Promise<Uint8Array[]> {
    // Read on every verification (never cached: retiring an anchor takes effect at once on every node), as one
    // plain indexed statement (fast-sql.ts, like TrustStore.issuerKey); only the PEM parsing is remembered.
    const rows = await sql<{ certificate_pem: string }[]>(
      this.ds,
      `SELECT certificate_pem FROM mdoc_trust_anchor
       WHERE environment = ? AND doctype = ? AND retired_at IS NULL ORDER BY created_at ASC`,
      [environment, doctype],
    );
    return rows.map((r) => this.derOf(r.certificate_pem));
  }

  /** Trusts an IACA (PEM) for the doctypes in the environment; re-registering is a no-op (un-retires it). */
  async register(input: {
    environment: Environment;
    doctypes: readonly string[];
    name: string;
    certificatePem: string;
    now: Date;
  }): Promise<void> {
    const cert = new X509Certificate(input.certificatePem);
    const fingerprint = createHash('sha256').update(new Uint8Array(cert.rawData)).digest('hex');
    for (const doctype of input.doctypes) {
      const id = `mta_${createHash('sha256').update(`${input.environment}|${doctype}|${fingerprint}`).digest('hex').slice(0, 32)}`;
      await this.ds
        .createQueryBuilder()
        .insert()
        .into(MdocTrustAnchorEntity)
        .values({
          id,
          environment: input.environment,
          doctype,
          name: input.name,
          subject: cert.subject.slice(0, 500),
          certificatePem: cert.toString('pem'),
          createdAt: input.now,
          retiredAt: null,
        })
        .orIgnore()
        .execute();
      await this.ds.getRepository(MdocTrustAnchorEntity).update({ id }, { retiredAt: null });
    }
  }
}
