// Owns Google Wallet's relying-party metadata (issue 26, ADR 0050). At onboarding Google returns a signed
// certificate and `gw_rp_metadata_bytes` (base64url of the CBOR RelyingPartyMetadataBytes); its production wallet
// wants those bytes in `client_metadata.gw_rp_metadata_bytes` of every signed request, and the certificate's
// extension 1.3.6.1.4.1.11129.10.1 holds their SHA-256. The operator imports them per certificate (the service's
// access certificate for a direct relying party, or a business's leaf in registrar mode): the certificate must
// be the leaf of one of our current signing chains, and the SHA-256 of the decoded bytes must equal the
// extension's value, else `gw_metadata_mismatch`. A signed DC API request then carries the bytes of the leaf it
// is signed with, and none when nothing was imported for that leaf.
import { createHash } from 'node:crypto';
import { X509Certificate } from '@peculiar/x509';
import { type DataSource, IsNull } from 'typeorm';
import type { Clock } from '../../common/clock';
import { AppError } from '../../common/errors';
import { VerifierChainEntity } from './access-certificate.entity';
import { GwRpMetadataEntity } from './gw-rp-metadata.entity';
import { extensionDigest } from './registrar';

const mismatch = (detail: string): never => {
  throw new AppError('gw_metadata_mismatch', detail, { param: 'metadata' });
};

/** base64url text of the metadata as Google hands it out (whitespace and padding tolerated). */
function decodeMetadata(text: string): { b64u: string; bytes: Buffer } {
  const clean = text.trim().replace(/=+$/, '');
  if (!/^[A-Za-z0-9_-]+$/.test(clean))
    throw new AppError('validation_failed', 'gw_rp_metadata_bytes must be base64url text.', {
      param: 'metadata',
    });
  const bytes = Buffer.from(clean, 'base64url');
  return { b64u: bytes.toString('base64url'), bytes };
}

export class GoogleRpMetadata {
  constructor(private readonly deps: { ds: DataSource; clock: Clock }) {}

  /** Imports the metadata for the certificate Google returned (PEM); checks it as the header says. */
  async import(certificatePem: string, metadataText: string): Promise<Record<string, unknown>> {
    let leaf: X509Certificate;
    try {
      leaf = new X509Certificate(certificatePem);
    } catch (e) {
      throw new AppError('validation_failed', 'The certificate is not a PEM X.509 certificate.', {
        param: 'cert',
        cause: e,
      });
    }
    const der = Buffer.from(leaf.rawData);
    const leafSha256 = createHash('sha256').update(der).digest('hex');
    const { b64u, bytes } = decodeMetadata(metadataText);
    const inCert = extensionDigest(der.toString('base64'));
    if (!inCert)
      mismatch('The certificate carries no relying-party metadata extension (1.3.6.1.4.1.11129.10.1).');
    if (createHash('sha256').update(bytes).digest('hex') !== inCert)
      mismatch('The SHA-256 of these metadata bytes is not the value in the certificate’s extension.');
    const chain = await this.deps.ds
      .getRepository(VerifierChainEntity)
      .findOneBy({ leafSha256, retiredAt: IsNull() });
    if (!chain)
      throw new AppError(
        'not_found',
        'This certificate is not the leaf of a current signing chain: import the certificate Google returned first.',
        { param: 'cert' },
      );
    const row = Object.assign(new GwRpMetadataEntity(), {
      leafSha256,
      businessId: chain.businessId,
      environment: chain.environment,
      metadata: b64u,
      createdAt: this.deps.clock.now(),
    });
    await this.deps.ds.getRepository(GwRpMetadataEntity).save(row);
    return {
      leaf_sha256: leafSha256,
      purpose: chain.purpose,
      business: chain.businessId,
      environment: chain.environment,
      bytes: bytes.length,
    };
  }

  /** The imported metadata of the leaf (base64 DER, x5c[0]) a request is signed with, if any. */
  async forLeaf(leafB64: string): Promise<string | undefined> {
    const leafSha256 = createHash('sha256').update(Buffer.from(leafB64, 'base64')).digest('hex');
    // sql-lint-allow: session-scope: by primary key of a small operator-managed table
    const row = await this.deps.ds.getRepository(GwRpMetadataEntity).findOneBy({ leafSha256 });
    return row?.metadata;
  }

  async list(): Promise<Record<string, unknown>[]> {
    const rows = await this.deps.ds.getRepository(GwRpMetadataEntity).find({ order: { createdAt: 'ASC' } });
    return rows.map((r) => ({
      leaf_sha256: r.leafSha256,
      business: r.businessId,
      environment: r.environment,
      imported_at: r.createdAt.toISOString(),
    }));
  }
}
