import { Column, Entity, PrimaryColumn } from 'typeorm';
import { idCol, str, time } from '../../db/columns';

@Entity('business')
export class BusinessEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...str(200), name: 'name' }) name!: string;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
}
