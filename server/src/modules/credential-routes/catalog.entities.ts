// Persistence of the credential route catalog: wallets, credential issuers and the routes (wallet x issuer)
// with their capability set (the primitives they can do), per-environment availability and the three production acceptances.
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bool, idCol, int, str, text, time } from '../../db/columns';

/** A wallet product a person may hold (the reference wallet, the EUDI wallet, a platform wallet...). */
@Entity('wallet')
export class WalletEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...str(200), name: 'name' }) name!: string;
  @Column({ ...str(200), name: 'provider' }) provider!: string;
  @Column({ ...text(), name: 'description' }) description!: string;
  /** JSON array of platform names (web, android, ios). */
  @Column({ ...text(), name: 'platforms' }) platforms!: string;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(), name: 'updated_at' }) updatedAt!: Date;
}

/**
 * An issuer of credentials. `identifier` is the `iss` of its SD-JWT VCs (or, for mdoc-only issuers, the name
 * its trust material is filed under); trust material (keys, X.509 anchors) is keyed by it and per environment.
 */
@Entity('credential_issuer')
export class CredentialIssuerEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...str(500), name: 'identifier' }) identifier!: string;
  @Column({ ...str(200), name: 'name' }) name!: string;
  @Column({ ...str(16, true), name: 'country' }) country!: string | null;
  @Column({ ...text(), name: 'description' }) description!: string;
  /** A test issuer (ours or a provider's): its routes can never become available in production. */
  @Column({ ...bool(), name: 'sandbox_only' }) sandboxOnly!: boolean;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(), name: 'updated_at' }) updatedAt!: Date;
}

/**
 * A credential route: a wallet presenting credentials of an issuer. production_available is derived by the
 * service and always equals provider_accepted AND issuer_accepted AND service_accepted.
 */
@Entity('credential_route')
@Index('IDX_credential_route_wallet_issuer', ['walletId', 'issuerId'], { unique: true })
export class CredentialRouteEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...idCol(), name: 'wallet_id' }) walletId!: string;
  @Column({ ...idCol(), name: 'issuer_id' }) issuerId!: string;
  /** JSON array of credential formats (dc+sd-jwt, mso_mdoc). */
  @Column({ ...text(), name: 'formats' }) formats!: string;
  /**
   * What the route can do: its capability set, the sum of its primitives' bits (PrimitiveSpec.bit; maskOf and
   * primitivesOfMask in workflow/primitives). One column instead of one per primitive (ADR 0054).
   */
  @Column({ ...int(), name: 'primitives', default: 0 }) primitives!: number;
  @Column({ ...bool(), name: 'sandbox_available' }) sandboxAvailable!: boolean;
  @Column({ ...bool(), name: 'production_available' }) productionAvailable!: boolean;
  @Column({ ...bool(), name: 'provider_accepted' }) providerAccepted!: boolean;
  @Column({ ...bool(), name: 'issuer_accepted' }) issuerAccepted!: boolean;
  @Column({ ...bool(), name: 'service_accepted' }) serviceAccepted!: boolean;
  /** Plain-language remarks for businesses (limits, what is pending). */
  @Column({ ...text(), name: 'notes' }) notes!: string;
  /** Our signed requests for this route carry only the leaf in x5c (Germany's rule; ADR 0050). */
  @Column({ ...bool(), name: 'x5c_leaf_only', default: false }) x5cLeafOnly!: boolean;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(), name: 'updated_at' }) updatedAt!: Date;
}

/**
 * The catalog's version: one row (id 1), bumped in the same transaction as every write to the three tables
 * above (CatalogService). The one-statement create checks it instead of the routes (ADR 0025).
 */
@Entity('catalog_version')
export class CatalogVersionEntity {
  @PrimaryColumn({ ...int(), name: 'id' }) id!: number;
  @Column({ ...int(), name: 'version' }) version!: number;
}
