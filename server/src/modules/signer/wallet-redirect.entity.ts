import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, str, time } from '../../db/columns';

/**
 * One same-device redirect back to the hosted page (issue 26, ADR 0050 "Same-device redirect"): the hash of
 * the fresh `response_code` handed to the wallet with `redirect_uri` after its direct_post.jwt answer was
 * verified. Single-use (`used_at`) and short-lived; the code itself is never stored.
 */
@Entity('wallet_redirect')
@Index('IDX_wallet_redirect_session', ['sessionId'])
export class WalletRedirectEntity {
  /** Hex SHA-256 of the response_code. */
  @PrimaryColumn({ ...str(64), name: 'code_hash' }) codeHash!: string;
  @Column({ ...idCol(), name: 'session_id' }) sessionId!: string;
  @Column({ ...idCol(), name: 'request_id' }) requestId!: string;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(), name: 'expires_at' }) expiresAt!: Date;
  @Column({ ...time(true), name: 'used_at' }) usedAt!: Date | null;
}
