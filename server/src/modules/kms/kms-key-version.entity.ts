import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { str, text, time } from '../../db/columns';

/**
 * A key version of the local KMS provider. `kid` is shaped like a cloud key-version resource name.
 * The private key is stored encrypted (AES-256-GCM) under the local master key; never returned.
 */
@Entity('kms_key_version')
@Index('IDX_kms_key_version_purpose', ['purpose', 'state'])
export class KmsKeyVersionEntity {
  @PrimaryColumn({ ...str(300), name: 'kid' }) kid!: string;
  @Column({ ...str(32), name: 'purpose' }) purpose!: string;
  @Column({ ...str(16), name: 'algorithm' }) algorithm!: string;
  @Column({ ...text(), name: 'public_jwk' }) publicJwk!: string;
  @Column({ ...text(), name: 'private_key_enc' }) privateKeyEnc!: string;
  /** enabled: signs; retained: verification only (still in the JWKS); retired: gone from the JWKS. */
  @Column({ ...str(16), name: 'state' }) state!: 'enabled' | 'retained' | 'retired';
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
}
