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
  @Column({ ...str(16), name: 'state' }) state!: 'open' | 'consumed';
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(), name: 'expires_at' }) expiresAt!: Date;
}
