// The trust API for trust lists (ADR 0055): the anchors a list holds are written here, beside the trust store
// that reads them (trust.ts), so the trust-list module never touches verification's tables.
import { X509Certificate } from '@peculiar/x509';
import { type EntityManager, IsNull } from 'typeorm';
import { newId } from '../../common/ids';
import type { Environment } from '../../config/config';
import { MdocTrustAnchorEntity } from './mdoc/mdoc-trust-anchor.entity';
import { fingerprintOf } from './trust';
import { TrustAnchorEntity } from './trust-anchor.entity';
import { bumpTrustVersion } from './trust-version';

/** A CA certificate a trust list names for one route: an SD-JWT VC anchor for `issuer`, an IACA for docTypes. */
export interface ListAnchor {
  routeId: string;
  /** The route's issuer identifier (`iss`). */
  issuer: string;
  /** The list's trusted entity whose service identity this is. */
  entity: string;
  /** SHA-256 of the DER certificate, hex. */
  fingerprint: string;
  pem: string;
}

/**
 * The trust API for trust lists (ADR 0055): makes the live anchors a list holds (SD-JWT VC `trust_anchor`, and
 * mdoc IACAs for each of `doctypes`) equal to `want`, retiring the others at `now`. Runs in the caller's
 * transaction `m`, so the list's version row and its anchors change together.
 */
export async function replaceListAnchors(
  m: EntityManager,
  list: { id: string; environment: Environment; name: string },
  want: readonly ListAnchor[],
  doctypes: readonly string[],
  now: Date,
): Promise<void> {
  const keyOf = (a: { routeId: string | null; entity: string | null; fingerprint: string }) =>
    `${a.routeId}|${a.entity}|${a.fingerprint}`;
  const wanted = new Map(want.map((e) => [keyOf(e), e]));
  const nameOf = (e: ListAnchor) => `${list.name}: ${e.entity}`.slice(0, 200);
  // the first change bumps the trust version in this transaction (ADR 0063); a refresh that changes nothing
  // leaves every node's cached trust warm
  let bumped = false;
  const changing = async () => {
    if (!bumped) await bumpTrustVersion(m);
    bumped = true;
  };
  const anchors = m.getRepository(TrustAnchorEntity);
  const held = await anchors.findBy({
    trustListId: list.id,
    environment: list.environment,
    retiredAt: IsNull(),
  });
  const heldKeys = new Set<string>();
  for (const a of held) {
    const k = keyOf(a);
    if (wanted.has(k)) heldKeys.add(k);
    else {
      await changing();
      await anchors.update({ id: a.id }, { retiredAt: now });
    }
  }
  for (const [k, e] of wanted) {
    if (heldKeys.has(k)) continue;
    const cert = new X509Certificate(e.pem);
    await changing();
    await anchors.insert({
      id: newId('tan'),
      issuer: e.issuer,
      environment: list.environment,
      routeId: e.routeId,
      trustListId: list.id,
      entity: e.entity,
      name: nameOf(e),
      certificate: cert.toString('pem'),
      fingerprint: e.fingerprint,
      notAfter: cert.notAfter,
      createdAt: now,
      retiredAt: null,
    });
  }
  // mdoc: the same certificates as IACAs for the list's docTypes on its routes
  const iacas = m.getRepository(MdocTrustAnchorEntity);
  const heldIacas = await iacas.findBy({
    trustListId: list.id,
    environment: list.environment,
    retiredAt: IsNull(),
  });
  const wantIaca = new Set<string>();
  for (const e of wanted.values()) for (const d of doctypes) wantIaca.add(`${keyOf(e)}|${d}`);
  const heldIacaKeys = new Set<string>();
  for (const a of heldIacas) {
    const fingerprint = fingerprintOf(new X509Certificate(a.certificatePem));
    const k = `${keyOf({ ...a, fingerprint })}|${a.doctype}`;
    if (wantIaca.has(k)) heldIacaKeys.add(k);
    else {
      await changing();
      await iacas.update({ id: a.id }, { retiredAt: now });
    }
  }
  for (const e of wanted.values())
    for (const doctype of doctypes) {
      if (heldIacaKeys.has(`${keyOf(e)}|${doctype}`)) continue;
      const cert = new X509Certificate(e.pem);
      await changing();
      await iacas.insert({
        id: newId('mta'),
        environment: list.environment,
        routeId: e.routeId,
        trustListId: list.id,
        entity: e.entity,
        doctype,
        name: nameOf(e),
        subject: cert.subject.slice(0, 500),
        certificatePem: cert.toString('pem'),
        createdAt: now,
        retiredAt: null,
      });
    }
}
