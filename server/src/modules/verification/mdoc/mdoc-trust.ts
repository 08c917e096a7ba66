// Owns mdoc issuer trust: which IACA root certificates are trusted for a docType on a credential route in an
// environment (table mdoc_trust_anchor; ADR 0036: trust belongs to a route), and their registration
// (idempotent: one row per route, environment, docType and certificate).
import { createHash } from 'node:crypto';
import { X509Certificate } from '@peculiar/x509';
import type { DataSource } from 'typeorm';
import type { Environment } from '../../../config/config';
import { sql } from '../../../db/fast-sql';
import { type RouteScope, scopeSql } from '../trust';
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
    // one plain indexed statement (fast-sql.ts), as the SD-JWT trust read: read on every verification
    const scope = scopeSql(routes);
    const rows = await sql<
      {
        certificate_pem: string;
        route_id: string;
        name: string;
        trust_list_id: string | null;
        entity: string | null;
      }[]
    >(
      this.ds,
      `SELECT certificate_pem, route_id, name, trust_list_id, entity FROM mdoc_trust_anchor
       WHERE environment = ? AND doctype = ? AND retired_at IS NULL AND ${scope.where} ORDER BY created_at ASC`,
      [environment, doctype, ...scope.params],
    );
    return rows.map((r) => ({
      der: this.derOf(r.certificate_pem),
      routeId: r.route_id,
      name: r.name,
      trustListId: r.trust_list_id,
      entity: r.entity,
    }));
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
    for (const doctype of input.doctypes) {
      const id = `mta_${createHash('sha256').update(`${input.environment}|${input.routeId}|${list}|${doctype}|${fingerprint}`).digest('hex').slice(0, 32)}`;
      await this.ds
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
      await this.ds.getRepository(MdocTrustAnchorEntity).update({ id }, { retiredAt: null });
    }
  }
}
