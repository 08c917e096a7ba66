import { Column, Entity, PrimaryColumn } from 'typeorm';
import { str, time } from '../../db/columns';

/**
 * A random key the service generates once and every node shares through the database (e.g. the MAC key of
 * the browser-binding cookie). Whoever can write this table can already rewrite any binding directly.
 */
@Entity('service_secret')
export class ServiceSecretEntity {
  @PrimaryColumn({ ...str(40), name: 'name' }) name!: string;
  @Column({ ...str(128), name: 'value' }) value!: string;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
}
