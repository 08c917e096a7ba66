import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, int, str, text, time } from '../../db/columns';

/** A credential held by a reference-wallet persona (issued by the sandbox issuer). */
@Entity('sandbox_credential')
@Index('IDX_sandbox_credential_persona', ['persona'])
export class SandboxCredentialEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...str(100), name: 'persona' }) persona!: string;
  @Column({ ...str(16), name: 'format' }) format!: 'dc+sd-jwt' | 'mso_mdoc';
  @Column({ ...str(200), name: 'vct' }) vct!: string;
  @Column({ ...text(), name: 'credential' }) credential!: string;
  @Column({ ...int(true), name: 'status_index' }) statusIndex!: number | null;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
}
