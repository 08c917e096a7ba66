import { Column, Entity, PrimaryColumn } from 'typeorm';
import { idCol, int, str, text, time } from '../../db/columns';

/** A Token Status List of the sandbox issuer (raw, uncompressed statuses, base64). */
@Entity('status_list')
export class StatusListEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...str(500), name: 'issuer' }) issuer!: string;
  @Column({ ...int(), name: 'bits' }) bits!: number;
  @Column({ ...int(), name: 'size' }) size!: number;
  @Column({ ...int(), name: 'next_index' }) nextIndex!: number;
  @Column({ ...text(), name: 'statuses' }) statuses!: string;
  @Column({ ...time(), name: 'updated_at' }) updatedAt!: Date;
}
