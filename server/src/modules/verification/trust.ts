// Owns issuer trust: which public key an `iss` is trusted with, per environment (sandbox issuers are trusted in
// the sandbox only). The same key must also sign the issuer's status lists.
import type { JWK } from 'jose';
import { type DataSource, IsNull } from 'typeorm';
import type { Environment } from '../../config/config';
import { TrustedIssuerEntity } from './trusted-issuer.entity';

export class TrustStore {
  constructor(private readonly ds: DataSource) {}

  async issuerKey(issuer: string, environment: Environment): Promise<JWK | null> {
    const row = await this.ds
      .getRepository(TrustedIssuerEntity)
      .findOne({ where: { issuer, environment, retiredAt: IsNull() }, order: { createdAt: 'DESC' } });
    return row ? (JSON.parse(row.publicJwk) as JWK) : null;
  }
}
