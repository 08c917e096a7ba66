// Persistence of the signer's record: online access to completed materials (window, close, recorded PDF
// download), emailed-receipt verification codes (hashed, single use) and deliveries with their receipt-page
// link (an opaque capability stored as a SHA-256). None of these are evidence; evidence stays untouched.
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, int, str, time } from '../../db/columns';

/** One row per session whose signer used receipt access; created on first use. */
@Entity('receipt_access')
export class ReceiptAccessEntity {
  @PrimaryColumn({ ...idCol(), name: 'session_id' }) sessionId!: string;
  @Column({ ...idCol(), name: 'business_id' }) businessId!: string;
  /** When the bound browser last downloaded the receipt PDF (the close-access warning depends on it). */
  @Column({ ...time(true), name: 'pdf_downloaded_at' }) pdfDownloadedAt!: Date | null;
  /** Set once, never cleared: online access closed permanently by the signer. */
  @Column({ ...time(true), name: 'closed_at' }) closedAt!: Date | null;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
}

/** `undelivered`: its email could not be sent; it counts against no limit and can never be used. */
export type ReceiptCodeState = 'open' | 'used' | 'void' | 'superseded' | 'undelivered';

/** A six-digit code sent to verify an email destination. Only its salted SHA-256 is stored. */
@Entity('receipt_code')
@Index('IDX_receipt_code_session_created', ['sessionId', 'createdAt'])
export class ReceiptCodeEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...idCol(), name: 'session_id' }) sessionId!: string;
  @Column({ ...str(320), name: 'email' }) email!: string;
  @Column({ ...str(64), name: 'code_hash' }) codeHash!: string;
  @Column({ ...int(), name: 'attempts' }) attempts!: number;
  @Column({ ...str(16), name: 'state' }) state!: ReceiptCodeState;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(), name: 'expires_at' }) expiresAt!: Date;
}

/** `withdrawn`: authorized, not yet sent when online access was closed or ended (spec §1): never sent. */
export type ReceiptDeliveryState = 'pending' | 'sent' | 'withdrawn';

/**
 * An emailed receipt authorized by a verified code. Written in the code's transaction (state pending), sent
 * after commit (and retried by the worker pass); the receipt-page link is minted at send time.
 */
@Entity('receipt_delivery')
@Index('IDX_receipt_delivery_link', ['linkHash'], { unique: true })
@Index('IDX_receipt_delivery_state', ['state', 'createdAt'])
export class ReceiptDeliveryEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...idCol(), name: 'session_id' }) sessionId!: string;
  @Column({ ...str(320), name: 'email' }) email!: string;
  @Column({ ...str(16), name: 'state' }) state!: ReceiptDeliveryState;
  /** SHA-256 (hex) of the receipt-page link token; null until sent. */
  @Column({ ...str(64, true), name: 'link_hash' }) linkHash!: string | null;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(true), name: 'sent_at' }) sentAt!: Date | null;
  /** The signer's page language (en/de/fr) and IANA time zone at authorization; null: en, UTC. */
  @Column({ ...str(8, true), name: 'lang' }) lang!: string | null;
  @Column({ ...str(64, true), name: 'time_zone' }) timeZone!: string | null;
}
