import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, int, str, text, time } from '../../db/columns';

/** One OpenID4VP request sent to a wallet for a step: its nonce and exact request are what we verify against. */
@Entity('wallet_request')
@Index('IDX_wallet_request_session', ['sessionId', 'stage'])
export class WalletRequestEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...idCol(), name: 'session_id' }) sessionId!: string;
  @Column({ ...idCol(), name: 'business_id' }) businessId!: string;
  @Column({ ...int(), name: 'stage' }) stage!: number;
  @Column({ ...str(128), name: 'nonce' }) nonce!: string;
  /** Expected audience of the key-binding JWT (e.g. `origin:<hosted origin>`). */
  @Column({ ...str(500), name: 'audience' }) audience!: string;
  /** JSON of the exact request object sent to the wallet. */
  @Column({ ...text(), name: 'request' }) request!: string;
  @Column({ ...str(16), name: 'state' }) state!: 'open' | 'consumed' | 'refused';
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(), name: 'expires_at' }) expiresAt!: Date;
  /**
   * NULL for the unsigned DC API request (`dc_api`); `dc_api.jwt` (signed DC API) and `direct_post.jwt`
   * (cross-device) need the response encrypted to `responseKey`.
   */
  @Column({ ...str(32, true), name: 'response_mode' }) responseMode!: string | null;
  /** The signed request object (JAR, compact JWS) of a signed request; served at request_uri cross-device. */
  @Column({ ...text(true), name: 'request_object' }) requestObject!: string | null;
  /** The ephemeral response-decryption key (private JWK), sealed under the master key; never leaves the server. */
  @Column({ ...text(true), name: 'response_key' }) responseKey!: string | null;
  /**
   * How the request reaches the wallet (`dc_api`, `dc_api_signed`, `cross_device`, `org_iso_mdoc`) and its place
   * in the session's support timeline (nextOrderKey): the timeline's `wallet_request` entry is this row (ADR
   * 0074). NULL on requests stored before, whose entry is a session_event row.
   */
  @Column({ ...str(16, true), name: 'transport' }) transport!: string | null;
  @Column({ ...str(20, true), name: 'order_key' }) orderKey!: string | null;
}
