// Owns mdoc issuer trust: which IACA root certificates are trusted for a docType on a credential route in an
// environment (table mdoc_trust_anchor; ADR 0036: trust belongs to a route), and their registration
// (idempotent: one row per route, environment, docType and certificate). The IACAs are read with the trust stamp
// and answered from this instance's cache to a caller holding the same stamp (ADR 0063).
import { createHash } from 'node:crypto';
import { X509Certificate } from '@peculiar/x509';
import type { DataSource, EntityManager } from 'typeorm';
import type { Environment } from '../../../config/config';
import { transactionWithRetry } from '../../../db/data-source';
import { sql } from '../../../db/fast-sql';
import { type RouteScope, scopeSql, stampOf, trustKey } from '../trust-scope';
import { bumpTrustVersion, STAMP_FROM, StampedCache, trustStampOf } from '../trust-version';
import { MdocTrustAnchorEntity } from './mdoc-trust-anchor.entity';

/** One trusted IACA with the route (and trust list entity) it belongs to. */
export interface MdocAnchor {
  der: Uint8Array;
  routeId: string;
  name: string;
  trustListId: string | null;
  entity: string | null;
}

export class MdocTrustStore {
  /** DER of each stored PEM already read (by the PEM text itself; a certificate's PEM never changes meaning). */
  private readonly ders = new Map<string, Uint8Array>();
  /** The IACAs of a docType on a route scope as read at a trust stamp (ADR 0063). */
  private readonly read = new StampedCache<MdocAnchor[]>(256);

  constructor(private readonly ds: DataSource) {}

  private derOf(pem: string): Uint8Array {
    const hit = this.ders.get(pem);
    if (hit) return hit;
    const der = new Uint8Array(new X509Certificate(pem).rawData);
    if (this.ders.size >= 256) this.ders.delete(this.ders.keys().next().value as string);
    this.ders.set(pem, der);
    return der;
  }

  /**
   * The IACAs trusted for `doctype` in `environment` on `routes` (the step's allowed routes; undefined: any
   * route), grouped by nothing: each carries its route. Empty: nobody is trusted.
   */
  async routeAnchors(environment: Environment, doctype: string, routes?: RouteScope): Promise<MdocAnchor[]> {
    // one plain indexed statement (fast-sql.ts) with the trust stamp, as the SD-JWT trust read
    const scope = scopeSql(routes, 'm.route_id');
    const cacheKey = trustKey(['mdoc', environment, doctype], scope);
    const hit = this.read.get(cacheKey, stampOf(routes));
    if (hit !== undefined) return hit;
    const rows = await sql<
      {
        certificate_pem: string | null;
        route_id: string;
        name: string;
        trust_list_id: string | null;
        entity: string | null;
        trust_cv: unknown;
        trust_tv: unknown;
      }[]
    >(
      this.ds,
      `SELECT m.certificate_pem, m.route_id, m.name, m.trust_list_id, m.entity, cv.version AS trust_cv,
       tv.version AS trust_tv FROM ${STAMP_FROM} LEFT JOIN mdoc_trust_anchor m ON m.environment = ?
       AND m.doctype = ? AND m.retired_at IS NULL AND ${scope.where} ORDER BY m.created_at ASC`,
      [environment, doctype, ...scope.params],
    );
    const anchors = rows
      .filter((r) => r.certificate_pem != null)
      .map((r) => ({
        der: this.derOf(r.certificate_pem as string),
        routeId: r.route_id,
        name: r.name,
        trustListId: r.trust_list_id,
        entity: r.entity,
      }));
    return this.read.keep(cacheKey, rows[0] ? trustStampOf(rows[0]) : undefined, anchors);
  }

  /** DER certificates of the IACAs trusted for `doctype` in `environment` on any of `routes`. */
  async anchors(environment: Environment, doctype: string, routes?: RouteScope): Promise<Uint8Array[]> {
    return (await this.routeAnchors(environment, doctype, routes)).map((a) => a.der);
  }

  /** Trusts an IACA (PEM) for the doctypes on a route in the environment; re-registering un-retires it. */
  async register(input: {
    environment: Environment;
    routeId: string;
    doctypes: readonly string[];
    name: string;
    certificatePem: string;
    now: Date;
    trustListId?: string | null;
    entity?: string | null;
  }): Promise<void> {
    const cert = new X509Certificate(input.certificatePem);
    const fingerprint = createHash('sha256').update(new Uint8Array(cert.rawData)).digest('hex');
    const list = input.trustListId ?? '';
    // one transaction with the trust version (ADR 0063): every node's cached trust is stale from its commit on
    await transactionWithRetry(this.ds, async (m) => {
      await bumpTrustVersion(m);
      for (const doctype of input.doctypes)
        await this.registerOne(m, input, cert, fingerprint, list, doctype);
    });
  }

  private async registerOne(
    m: EntityManager,
    input: {
      environment: Environment;
      routeId: string;
      name: string;
      now: Date;
      trustListId?: string | null;
      entity?: string | null;
    },
    cert: X509Certificate,
    fingerprint: string,
    list: string,
    doctype: string,
  ): Promise<void> {
    // stamp: bumped by register, whose transaction this runs in
    const id = `mta_${createHash('sha256').update(`${input.environment}|${input.routeId}|${list}|${doctype}|${fingerprint}`).digest('hex').slice(0, 32)}`;
    await m
      .createQueryBuilder()
      .insert()
      .into(MdocTrustAnchorEntity)
      .values({
        id,
        environment: input.environment,
        routeId: input.routeId,
        trustListId: input.trustListId ?? null,
        entity: input.entity ?? null,
        doctype,
        name: input.name,
        subject: cert.subject.slice(0, 500),
        certificatePem: cert.toString('pem'),
        createdAt: input.now,
        retiredAt: null,
      })
      .orIgnore()
      .execute();
    await m.getRepository(MdocTrustAnchorEntity).update({ id }, { retiredAt: null });
  }
}
