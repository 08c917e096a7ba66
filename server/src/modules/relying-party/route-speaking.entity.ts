import { Column, Entity, PrimaryColumn } from 'typeorm';
import { str, time } from '../../db/columns';

/**
 * How the service speaks for a business on a route in an environment (issue 26, ADR 0053): `intermediary` (our
 * access certificate signs, the business's registration certificate goes in `verifier_info`) or
 * `business-certificate` (the business's own access certificate signs; no intermediary). No row: the default
 * of ADR 0034/0040 (a registrar leaf when registrar mode is on, else our access certificate).
 */
export type SpeakingMode = 'intermediary' | 'business-certificate';
export const SPEAKING_MODES: readonly SpeakingMode[] = ['intermediary', 'business-certificate'];

@Entity('route_speaking')
export class RouteSpeakingEntity {
  @PrimaryColumn({ ...str(40), name: 'route_id' }) routeId!: string;
  @PrimaryColumn({ ...str(16), name: 'environment' }) environment!: string;
  @Column({ ...str(24), name: 'mode' }) mode!: SpeakingMode;
  @Column({ ...time(), name: 'updated_at' }) updatedAt!: Date;
}
