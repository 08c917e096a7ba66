// Persistence of ETSI trust lists (ADR 0036): a configured list (LoTL TS 119 612 or LoTE TS 119 602), and every
// attempt to load it: an accepted version (what it added and removed) or a refused one (why; the last good
// version stays in force).
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, int, str, text, time } from '../../db/columns';

@Entity('trust_list')
export class TrustListEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...str(200), name: 'name' }) name!: string;
  /** lotl: a List of Trusted Lists pointing at lists; lote: a list of trusted entities itself. */
  @Column({ ...str(8), name: 'kind' }) kind!: 'lotl' | 'lote';
  /** An https URL (SSRF-guarded) or a file path. */
  @Column({ ...str(1000), name: 'source' }) source!: string;
  @Column({ ...str(16), name: 'environment' }) environment!: 'sandbox' | 'production';
  /** JSON array of credential route ids whose issuers the list's entities are trusted for. */
  @Column({ ...text(), name: 'routes' }) routes!: string;
  /** JSON array of mdoc docTypes the entities' certificates are IACAs for (empty: SD-JWT VC only). */
  @Column({ ...text(), name: 'doctypes' }) doctypes!: string;
  /** PEM certificates the list's signature must validate to. */
  @Column({ ...text(), name: 'anchors_pem' }) anchorsPem!: string;
  /** attempt number of the version in force (NULL: none accepted yet). */
  @Column({ ...int(true), name: 'current_version' }) currentVersion!: number | null;
  /** When the worker fetches the list again (the version's NextUpdate, or a retry time after a failure). */
  @Column({ ...time(true), name: 'next_update' }) nextUpdate!: Date | null;
  @Column({ ...time(true), name: 'last_attempt_at' }) lastAttemptAt!: Date | null;
  @Column({ ...text(true), name: 'last_error' }) lastError!: string | null;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(true), name: 'retired_at' }) retiredAt!: Date | null;
}

@Entity('trust_list_version')
@Index('IDX_trust_list_version_list_attempt', ['listId', 'attempt'], { unique: true })
export class TrustListVersionEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...idCol(), name: 'list_id' }) listId!: string;
  /** 1, 2, 3... per list, every attempt (accepted or refused). */
  @Column({ ...int(), name: 'attempt' }) attempt!: number;
  @Column({ ...str(16), name: 'status' }) status!: 'accepted' | 'refused';
  @Column({ ...str(40, true), name: 'sequence_number' }) sequenceNumber!: string | null;
  @Column({ ...time(true), name: 'issued_at' }) issuedAt!: Date | null;
  @Column({ ...time(true), name: 'next_update' }) nextUpdate!: Date | null;
  /** SHA-256 of the fetched bytes (hex). */
  @Column({ ...str(64, true), name: 'digest' }) digest!: string | null;
  /** accepted: JSON [{name, fingerprints[]}] of the entities in force. */
  @Column({ ...text(true), name: 'entities' }) entities!: string | null;
  /** JSON [{entity, fingerprint}] added and removed against the previous accepted version. */
  @Column({ ...text(), name: 'added' }) added!: string;
  @Column({ ...text(), name: 'removed' }) removed!: string;
  @Column({ ...text(true), name: 'error' }) error!: string | null;
  @Column({ ...time(), name: 'fetched_at' }) fetchedAt!: Date;
}
