// Owns how the service speaks for a business (issue 26, ADR 0053), per route and environment:
// - `intermediary`: our access certificate signs the request and the business's registration certificate goes in
//   `verifier_info` (the EU intermediary rules: the wallet shows the business and "via" us);
// - `business-certificate`: the business's own access certificate (a chain a CA issued to the business for a key
//   we hold, imported here with the access-certificate checks) signs; no intermediary, no verifier_info.
// A step follows the strictest mode among its allowed routes: business-certificate if any route asks for it,
// else intermediary if any does, else the default of ADR 0034/0040. What a mode lacks is a stable error code at
// request time (business_certificate_missing, registration_certificate_missing), never a 5xx.
import { createHash } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { JWK } from 'jose';
import { type DataSource, type EntityManager, In, IsNull } from 'typeorm';
import type { Clock } from '../../common/clock';
import { AppError } from '../../common/errors';
import { newId } from '../../common/ids';
import { isUniqueViolation, transactionWithRetry } from '../../db/data-source';
import { CredentialRouteEntity } from '../credential-routes/catalog.entities';
import type { KeySealer } from '../kms/key-sealer';
import { BusinessEntity } from '../tenancy/business.entity';
import { bumpTrustVersion } from '../verification/trust-version';
import { AccessCertificates, assertChainUsable, keyAad } from './access-certificate';
import { VerifierChainEntity, VerifierKeyEntity } from './access-certificate.entity';
import { RouteSpeakingEntity, SPEAKING_MODES, type SpeakingMode } from './route-speaking.entity';
import {
  cryptoKeyPair,
  identityFrom,
  newSealedKey,
  openSealedJwk,
  SIGNING,
  spkiOfJwk,
  type VerifierIdentity,
} from './verifier-keys';

export type { SpeakingMode } from './route-speaking.entity';

const PURPOSE = 'business_access' as const;

/** The mode a step follows given its allowed routes in an environment (undefined: the default). */
export async function speakingFor(
  ds: DataSource,
  routes: readonly string[],
  environment: string,
): Promise<SpeakingMode | undefined> {
  if (routes.length === 0) return undefined;
  const rows = await ds
    .getRepository(RouteSpeakingEntity)
    .find({ where: { routeId: In([...routes]), environment } });
  return strictestSpeaking(rows.map((r) => r.mode));
}

/** The strictest of the routes' modes: business-certificate, then intermediary; undefined: the default. */
export function strictestSpeaking(modes: readonly string[]): SpeakingMode | undefined {
  if (modes.includes('business-certificate')) return 'business-certificate';
  return modes.includes('intermediary') ? 'intermediary' : undefined;
}

/** Sets (or with `default`, clears) a route's mode in an environment; `audit` runs in the same transaction. */
export async function setSpeaking(
  ds: DataSource,
  clock: Clock,
  input: { route: string; environment: string; mode: string },
  audit: (m: EntityManager) => Promise<void>,
): Promise<{ route: string; environment: string; speaking: SpeakingMode | 'default' }> {
  const { route, environment, mode } = input;
  if (environment !== 'sandbox' && environment !== 'production')
    throw new AppError('validation_failed', '--env must be sandbox or production.', { param: 'env' });
  if (mode !== 'default' && !SPEAKING_MODES.includes(mode as SpeakingMode))
    throw new AppError(
      'validation_failed',
      '--speaking must be intermediary, business-certificate or default.',
      {
        param: 'speaking',
      },
    );
  if (!(await ds.getRepository(CredentialRouteEntity).existsBy({ id: route })))
    throw new AppError('not_found', `No route ${route}.`);
  await transactionWithRetry(ds, async (m) => {
    // the routes' speaking mode is read with their trust (readRouteTrust): the same stamp (ADR 0063)
    await bumpTrustVersion(m);
    const repo = m.getRepository(RouteSpeakingEntity);
    await repo.delete({ routeId: route, environment });
    if (mode !== 'default')
      await repo.insert({ routeId: route, environment, mode: mode as SpeakingMode, updatedAt: clock.now() });
    await audit(m);
  });
  return { route, environment, speaking: mode as SpeakingMode | 'default' };
}

/** A business's own access certificates, per environment: our key, its CSR, the chain the business's CA issued. */
export class BusinessCertificates {
  private readonly access: AccessCertificates;

  constructor(private readonly deps: { ds: DataSource; sealer: KeySealer; hostedUrl: string; clock: Clock }) {
    this.access = new AccessCertificates(deps);
  }

  private get host(): string {
    return new URL(this.deps.hostedUrl).hostname;
  }

  private async business(id: string, environment: string): Promise<BusinessEntity> {
    if (environment !== 'sandbox' && environment !== 'production')
      throw new AppError('validation_failed', '--env must be sandbox or production.', { param: 'env' });
    const b = await this.deps.ds.getRepository(BusinessEntity).findOneBy({ id });
    if (!b) throw new AppError('not_found', `No business ${id}.`);
    return b;
  }

  /** A new P-256 key for the business and environment and its PKCS#10 CSR (CN = the business's name). */
  async csr(businessId: string, environment: string): Promise<{ key_id: string; pem: string }> {
    const b = await this.business(businessId, environment);
    const id = newId('vk');
    const sealed = await newSealedKey(this.deps.sealer, keyAad(id));
    await this.deps.ds.getRepository(VerifierKeyEntity).insert({
      id,
      purpose: PURPOSE,
      host: this.host,
      businessId,
      environment,
      publicJwk: JSON.stringify(sealed.publicJwk),
      privateKeyEnc: sealed.privateKeyEnc,
      createdAt: this.deps.clock.now(),
      retiredAt: null,
    });
    const keys = await cryptoKeyPair(openSealedJwk(this.deps.sealer, keyAad(id), sealed.privateKeyEnc));
    const name = new x509.Name([{ CN: [b.name] }]).toString();
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({
      name,
      keys,
      signingAlgorithm: SIGNING,
      extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
    });
    return { key_id: id, pem: csr.toString('pem') };
  }

  /**
   * Imports the business's chain (leaf for one of its keys of that environment, intermediates, root) with the
   * access-certificate checks: the chain links to a self-signed root, the key is ours for this business and
   * environment, every certificate is valid now, digitalSignature. The subjectAltName is not required to name
   * our host (the request's client_id is x509_hash). The chain it replaces is retired.
   */
  async importChain(
    businessId: string,
    environment: string,
    pem: string,
    audit: (m: EntityManager, view: Record<string, unknown>) => Promise<void>,
  ): Promise<Record<string, unknown>> {
    await this.business(businessId, environment);
    const now = this.deps.clock.now();
    const certs = this.access.parse(pem);
    const leaf = certs[0] as x509.X509Certificate;
    const keys = await this.deps.ds
      .getRepository(VerifierKeyEntity)
      .find({ where: { purpose: PURPOSE, businessId, environment, retiredAt: IsNull() } });
    const key = keys.find((k) =>
      spkiOfJwk(JSON.parse(k.publicJwk) as JWK).equals(Buffer.from(leaf.publicKey.rawData)),
    );
    if (!key)
      throw new AppError(
        'access_chain_key_mismatch',
        'The first certificate is not for a key of this business and environment (business-cert csr).',
      );
    const path = await this.access.path(leaf, certs.slice(1));
    assertChainUsable(path, leaf, now);
    const b64 = (c: x509.X509Certificate) => Buffer.from(c.rawData).toString('base64');
    const row: VerifierChainEntity = {
      id: newId('vch'),
      keyId: key.id,
      purpose: PURPOSE,
      host: this.host,
      businessId,
      environment,
      x5c: JSON.stringify(path.slice(0, -1).map(b64)),
      rootCertificate: b64(path[path.length - 1] as x509.X509Certificate),
      leafSha256: createHash('sha256').update(Buffer.from(leaf.rawData)).digest('hex'),
      notBefore: leaf.notBefore,
      notAfter: new Date(Math.min(...path.map((c) => c.notAfter.getTime()))),
      createdAt: now,
      retiredAt: null,
    };
    const view = {
      id: row.id,
      business: businessId,
      environment,
      subject: leaf.subject,
      not_after: row.notAfter.toISOString(),
      leaf_sha256: row.leafSha256,
    };
    try {
      await transactionWithRetry(this.deps.ds, async (m) => {
        await m
          .getRepository(VerifierChainEntity)
          .update({ purpose: PURPOSE, businessId, environment, retiredAt: IsNull() }, { retiredAt: now });
        await m.getRepository(VerifierChainEntity).insert(row);
        await audit(m, view);
      });
    } catch (e) {
      if (isUniqueViolation(e))
        throw new AppError('access_chain_already_imported', 'This leaf certificate was imported before.');
      throw e;
    }
    return view;
  }

  /** The identity the business's own current certificate gives (undefined: none valid now). */
  async identityFor(businessId: string, environment: string): Promise<VerifierIdentity | undefined> {
    const now = this.deps.clock.now();
    const chain = await this.deps.ds.getRepository(VerifierChainEntity).findOne({
      where: { purpose: PURPOSE, businessId, environment, retiredAt: IsNull() },
      order: { createdAt: 'DESC' },
    });
    if (!chain || chain.notBefore > now || chain.notAfter <= now) return undefined;
    const key = await this.deps.ds.getRepository(VerifierKeyEntity).findOneBy({ id: chain.keyId });
    if (!key) return undefined;
    return identityFrom({
      host: this.host,
      x5c: JSON.parse(chain.x5c) as string[],
      rootCertificate: chain.rootCertificate,
      notAfter: chain.notAfter,
      privateJwk: openSealedJwk(this.deps.sealer, keyAad(key.id), key.privateKeyEnc),
    });
  }
}
