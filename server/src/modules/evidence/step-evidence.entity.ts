import { Column, Entity, PrimaryColumn } from 'typeorm';
import { idCol, str, text, time } from '../../db/columns';

/**
 * Encrypted evidence of one completed step (the full wallet presentation of an age_verify, sign or attestation
 * step). AES-256-GCM under a data key of its own; the data key is stored only wrapped by the KMS
 * (`kid` = key-encryption key version). The AAD binds the ciphertext to this session and stage.
 * Evidence: insert-only, never updated or deleted.
 */
@Entity('step_evidence')
export class StepEvidenceEntity {
  @PrimaryColumn({ ...idCol(), name: 'session_id' }) sessionId!: string;
  @PrimaryColumn({ type: 'int', name: 'stage' }) stage!: number;
  @Column({ ...idCol(), name: 'business_id' }) businessId!: string;
  /** What was encrypted, e.g. `presentation`. */
  @Column({ ...str(32), name: 'kind' }) kind!: string;
  /** Content encryption algorithm (JOSE name): A256GCM. */
  @Column({ ...str(16), name: 'alg' }) alg!: string;
  @Column({ ...str(300), name: 'kid' }) kid!: string;
  @Column({ ...text(), name: 'wrapped_key' }) wrappedKey!: string;
  /** base64url, 12 bytes. */
  @Column({ ...str(32), name: 'iv' }) iv!: string;
  @Column({ ...text(), name: 'ciphertext' }) ciphertext!: string;
  /** base64url GCM tag, 16 bytes. */
  @Column({ ...str(32), name: 'tag' }) tag!: string;
  /** Hex SHA-256 of the plaintext; the audit record of the step carries the same digest. */
  @Column({ ...str(64), name: 'plaintext_sha256' }) plaintextSha256!: string;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
}
