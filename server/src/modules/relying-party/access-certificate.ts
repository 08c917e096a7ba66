// Owns the verifier's access certificates from a real CA (issue 19, ADR 0034): the operator makes a P-256 key
// (sealed in table verifier_key, never in code), a PKCS#10 CSR for it naming HOSTED_URL's host, and imports the
// chain the CA issued after checking it (leaf -> ... -> self-signed root, each link's signature, the leaf's key
// is ours, digitalSignature, SAN naming the host, every certificate valid now). The newest import is the
// current chain; the one it replaces is kept, retired. Requests are then signed under it (verifier-identity.ts).
import { createHash } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { JWK } from 'jose';
import { type DataSource, type EntityManager, IsNull } from 'typeorm';
import type { Clock } from '../../common/clock';
import { AppError } from '../../common/errors';
import { newId } from '../../common/ids';
import { isUniqueViolation, transactionWithRetry } from '../../db/data-source';
import type { KeySealer } from '../kms/key-sealer';
import { VerifierChainEntity, VerifierKeyEntity } from './access-certificate.entity';
import { cryptoKeyPair, newSealedKey, openSealedJwk, SIGNING, spkiOfJwk } from './verifier-keys';

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
const der = (c: x509.X509Certificate) => Buffer.from(c.rawData);
const b64 = (c: x509.X509Certificate) => der(c).toString('base64');

export const keyAad = (id: string) => `verifier_key:${id}`;

export interface ChainView {
  id: string;
  key_id: string;
  host: string;
  subject: string;
  issuer: string;
  not_before: string;
  not_after: string;
  leaf_sha256: string;
  imported: string;
  retired: string | null;
}

const chainView = (c: VerifierChainEntity): ChainView => {
  const leaf = new x509.X509Certificate(Buffer.from((JSON.parse(c.x5c) as string[])[0] as string, 'base64'));
  return {
    id: c.id,
    key_id: c.keyId,
    host: c.host,
    subject: leaf.subject,
    issuer: leaf.issuer,
    not_before: c.notBefore.toISOString(),
    not_after: c.notAfter.toISOString(),
    leaf_sha256: c.leafSha256,
    imported: c.createdAt.toISOString(),
    retired: c.retiredAt?.toISOString() ?? null,
  };
};

/** Does the SAN name this host (dNSName, iPAddress, or a URI on this host)? */
function sanNames(leaf: x509.X509Certificate, host: string): boolean {
  const san = leaf.getExtension(x509.SubjectAlternativeNameExtension);
  if (!san) return false;
  return san.names.toJSON().some((n) => {
    if (n.type === 'dns' || n.type === 'ip') return n.value.toLowerCase() === host.toLowerCase();
    if (n.type === 'url') {
      try {
        return new URL(n.value).hostname.toLowerCase() === host.toLowerCase();
      } catch {
        return false;
      }
    }
    return false;
  });
}

export class AccessCertificates {
  constructor(
    private readonly deps: { ds: DataSource; sealer: KeySealer; hostedUrl: string; clock: Clock },
  ) {}

  get host(): string {
    return new URL(this.deps.hostedUrl).hostname;
  }

  /** A new access key for the hosted host; its CSR is `csr()`. */
  async createKey(): Promise<{ key_id: string; host: string; public_jwk: JWK }> {
    const id = newId('vk');
    const { publicJwk, privateKeyEnc } = await newSealedKey(this.deps.sealer, keyAad(id));
    await this.deps.ds.getRepository(VerifierKeyEntity).insert({
      id,
      purpose: 'access',
      host: this.host,
      businessId: null,
      environment: null,
      publicJwk: JSON.stringify(publicJwk),
      privateKeyEnc,
      createdAt: this.deps.clock.now(),
      retiredAt: null,
    });
    return { key_id: id, host: this.host, public_jwk: publicJwk };
  }

  private async accessKeys(): Promise<VerifierKeyEntity[]> {
    return this.deps.ds.getRepository(VerifierKeyEntity).find({
      where: { purpose: 'access', host: this.host, retiredAt: IsNull() },
      order: { createdAt: 'DESC' },
    });
  }

  /** PKCS#10 CSR (PEM) of an access key (default: the newest), SAN dNSName = the hosted host. */
  async csr(keyId?: string): Promise<{ key_id: string; pem: string }> {
    const key = (await this.accessKeys()).find((k) => keyId === undefined || k.id === keyId);
    if (!key) throw new AppError('not_found', 'No such access key; make one with `verifier-key create`.');
    const keys = await cryptoKeyPair(openSealedJwk(this.deps.sealer, keyAad(key.id), key.privateKeyEnc));
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({
      name: `CN=${this.host}`,
      keys,
      signingAlgorithm: SIGNING,
      extensions: [
        new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: this.host }]),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      ],
    });
    return { key_id: key.id, pem: csr.toString('pem') };
  }

  /**
   * Checks a PEM chain (the leaf for one of our access keys, its intermediates and the root) and makes it the
   * current one; the chain it replaces is retired. `audit` runs in the same transaction.
   */
  async importChain(
    pem: string,
    audit: (m: EntityManager, chain: ChainView) => Promise<void>,
  ): Promise<ChainView> {
    const now = this.deps.clock.now();
    const certs = this.parse(pem);
    const keys = await this.accessKeys();
    const leaf = certs[0] as x509.X509Certificate;
    const key = keys.find((k) =>
      spkiOfJwk(JSON.parse(k.publicJwk) as JWK).equals(Buffer.from(leaf.publicKey.rawData)),
    );
    if (!key)
      throw new AppError(
        'access_chain_key_mismatch',
        'The first certificate is not for an access key of ours.',
      );
    const path = await this.path(leaf, certs.slice(1));
    assertChainUsable(path, leaf, now);
    if (!sanNames(leaf, this.host))
      throw new AppError(
        'access_chain_host_mismatch',
        `The leaf certificate's SAN does not name ${this.host}.`,
      );
    const root = path[path.length - 1] as x509.X509Certificate;
    const row: VerifierChainEntity = {
      id: newId('vch'),
      keyId: key.id,
      purpose: 'access',
      host: this.host,
      businessId: null,
      environment: null,
      x5c: JSON.stringify(path.slice(0, -1).map(b64)),
      rootCertificate: b64(root),
      leafSha256: createHash('sha256').update(der(leaf)).digest('hex'),
      notBefore: leaf.notBefore,
      notAfter: new Date(Math.min(...path.map((c) => c.notAfter.getTime()))),
      createdAt: now,
      retiredAt: null,
    };
    try {
      await transactionWithRetry(this.deps.ds, async (m) => {
        await m
          .getRepository(VerifierChainEntity)
          .update({ purpose: 'access', host: this.host, retiredAt: IsNull() }, { retiredAt: now });
        await m.getRepository(VerifierChainEntity).insert(row);
        await audit(m, chainView(row));
      });
    } catch (e) {
      if (isUniqueViolation(e))
        throw new AppError('access_chain_already_imported', 'This leaf certificate was imported before.');
      throw e;
    }
    return chainView(row);
  }

  parse(pem: string): x509.X509Certificate[] {
    const blocks = pem.match(PEM_BLOCK) ?? [];
    if (blocks.length < 2)
      throw new AppError('access_chain_invalid', 'Give the leaf, any intermediates and the root as PEM.');
    try {
      return blocks.map((b) => new x509.X509Certificate(b));
    } catch (e) {
      throw new AppError('access_chain_invalid', 'A certificate of the PEM does not parse.', { cause: e });
    }
  }

  /** leaf -> ... -> self-signed root, every link's signature checked, every issuer a CA. */
  async path(leaf: x509.X509Certificate, rest: x509.X509Certificate[]): Promise<x509.X509Certificate[]> {
    const invalid = (why: string) => new AppError('access_chain_invalid', why);
    if (await leaf.isSelfSigned()) throw invalid('The leaf certificate is self-signed.');
    const path = [leaf];
    let current = leaf;
    for (let depth = 0; depth <= rest.length; depth++) {
      let issuer: x509.X509Certificate | undefined;
      for (const c of rest) {
        if (path.includes(c) || c.subject !== current.issuer) continue;
        if (await current.verify({ publicKey: c.publicKey, signatureOnly: true })) issuer = c;
      }
      if (!issuer) throw invalid(`No certificate of the chain signed ${current.subject}.`);
      if (!issuer.getExtension(x509.BasicConstraintsExtension)?.ca)
        throw invalid(`${issuer.subject} is not a CA certificate.`);
      path.push(issuer);
      if (await issuer.isSelfSigned()) return path;
      current = issuer;
    }
    throw invalid('The chain does not end in a self-signed root.');
  }

  async list(): Promise<{ keys: Record<string, unknown>[]; chains: ChainView[] }> {
    const keys = await this.deps.ds
      .getRepository(VerifierKeyEntity)
      .find({ where: { purpose: 'access' }, order: { createdAt: 'ASC' } });
    const chains = await this.deps.ds
      .getRepository(VerifierChainEntity)
      .find({ where: { purpose: 'access' }, order: { createdAt: 'ASC' } });
    return {
      keys: keys.map((k) => ({
        key_id: k.id,
        host: k.host,
        created: k.createdAt.toISOString(),
        retired: k.retiredAt?.toISOString() ?? null,
      })),
      chains: chains.map(chainView),
    };
  }

  /** The current imported chain for the hosted host with its private key, if one is valid at `now`. */
  async current(now: Date): Promise<{ chain: VerifierChainEntity; privateJwk: JWK } | undefined> {
    const chain = await this.deps.ds.getRepository(VerifierChainEntity).findOne({
      where: { purpose: 'access', host: this.host, retiredAt: IsNull() },
      order: { createdAt: 'DESC' },
    });
    if (!chain || chain.notBefore > now || chain.notAfter <= now) return undefined;
    const key = await this.deps.ds.getRepository(VerifierKeyEntity).findOneBy({ id: chain.keyId });
    if (!key) return undefined;
    return { chain, privateJwk: openSealedJwk(this.deps.sealer, keyAad(key.id), key.privateKeyEnc) };
  }
}

/** Every certificate of the path valid at `now`, and a leaf that may sign (access_chain_* codes). */
export function assertChainUsable(
  path: readonly x509.X509Certificate[],
  leaf: x509.X509Certificate,
  now: Date,
): void {
  for (const c of path) {
    if (c.notBefore.getTime() > now.getTime() || c.notAfter.getTime() < now.getTime())
      throw new AppError(
        'access_chain_not_current',
        `${c.subject} is valid ${c.notBefore.toISOString()} to ${c.notAfter.toISOString()}.`,
      );
  }
  const usage = leaf.getExtension(x509.KeyUsagesExtension);
  if (!usage || (usage.usages & x509.KeyUsageFlags.digitalSignature) === 0)
    throw new AppError('access_chain_key_usage', 'The leaf certificate does not allow digitalSignature.');
}
