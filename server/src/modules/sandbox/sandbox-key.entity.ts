import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, str, text, time } from '../../db/columns';

/**
 * Keys of the sandbox actors (the sandbox issuer and reference-wallet holders). These are test keys of
 * sandbox-only personas, not service keys; they never sign anything a production session accepts.
 */
@Entity('sandbox_key')
@Index('IDX_sandbox_key_owner', ['owner', 'purpose'], { unique: true })
export class SandboxKeyEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...str(16), name: 'purpose' }) purpose!: 'issuer' | 'holder';
  @Column({ ...str(100), name: 'owner' }) owner!: string;
  @Column({ ...text(), name: 'private_jwk' }) privateJwk!: string;
  @Column({ ...text(), name: 'public_jwk' }) publicJwk!: string;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
}
