import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, int, str, time } from '../../db/columns';

/**
 * A document uploaded with a session for one of its sign steps. The bytes live in the blob store under their
 * SHA-256 (written once, never overwritten). Insert-only: once its sign step completed, the row and the blob
 * are immutable evidence; before that, the upload is transient (cleanup-eligible).
 */
@Entity('document')
@Index('IDX_document_session_position', ['sessionId', 'position'], { unique: true })
export class DocumentEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...idCol(), name: 'session_id' }) sessionId!: string;
  @Column({ ...idCol(), name: 'business_id' }) businessId!: string;
  /** The sign step (stage) this document belongs to. */
  @Column({ ...int(), name: 'stage' }) stage!: number;
  /** Order of upload within the session, from 0. */
  @Column({ ...int(), name: 'position' }) position!: number;
  /** The file name of the part, as shown to the signer. */
  @Column({ ...str(255), name: 'label' }) label!: string;
  /** Lower-case hex SHA-256 of the exact bytes. */
  @Column({ ...str(64), name: 'sha256' }) sha256!: string;
  @Column({ ...int(), name: 'size' }) size!: number;
  @Column({ ...str(100), name: 'content_type' }) contentType!: string;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
}
