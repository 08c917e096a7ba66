// Owns the emailed receipt (spec §4.4): the six-digit code that verifies an address (valid 10 min, one new
// code per minute, at most 5 per hour per session, counted in the database transaction under the session row
// lock; stored hashed, single use, voided after RECEIPT_LIMITS.codeAttempts wrong tries), the delivery it
// authorizes, and sending it (retried by the worker, deliverPending).
import { randomInt } from 'node:crypto';
import { LessThan, MoreThan, Not } from 'typeorm';
import { safeEqual } from '../../common/crypto';
import { AppError } from '../../common/errors';
import { logTag, newId, randomToken, sha256Hex } from '../../common/ids';
import { lockSessionRow, transactionWithRetry } from '../../db/data-source';
import { pageBrandOf } from '../branding/branding.service';
import { SessionEntity } from '../session/session.entity';
import {
  RECEIPT_LIMITS,
  type ReceiptDeps,
  type ReceiptMailer,
  type ReceiptState,
  type SignerAccess,
} from './receipt.access';
import { presentationOfDelivery, type ReceiptRecords, receiptFilename } from './receipt.data';
import { ReceiptAccessEntity, ReceiptCodeEntity, ReceiptDeliveryEntity } from './receipt.entities';
import {
  DEFAULT_PRESENTATION,
  localTime,
  RECEIPT_EMAIL_WORDS,
  type ReceiptPresentation,
} from './receipt.words';

const EMAIL = /^[^\s@<>()",;:\\]{1,64}@[^\s@<>()",;:\\]+\.[^\s@<>()",;:\\]+$/;

const codeHash = (codeId: string, code: string) => sha256Hex(`${codeId}:${code}`);

export class ReceiptEmails {
  constructor(
    private readonly deps: ReceiptDeps,
    private readonly access: SignerAccess,
    private readonly records: Pick<ReceiptRecords, 'receiptData' | 'renderPdf'>,
    /** The done/partial screen after a change (ReceiptService.state). */
    private readonly readState: (
      sessionId: string,
      browserToken: string | undefined,
    ) => Promise<ReceiptState>,
  ) {}

  /** Sends a six-digit code to `email`, within the resend delay and the hourly limit (checked in the DB). */
  async requestCode(
    sessionId: string,
    browserToken: string | undefined,
    email: unknown,
    presentation: ReceiptPresentation = DEFAULT_PRESENTATION,
  ): Promise<ReceiptState> {
    if (typeof email !== 'string' || email.length > 254 || !EMAIL.test(email.trim()))
      throw new AppError('validation_failed', 'Enter a valid email address.', { param: 'email' });
    const to = email.trim();
    const l = await this.access.load(sessionId, browserToken);
    this.access.assertOpen(l);
    if ((await this.access.completedRows(l.s.id)).length === 0) throw new AppError('receipt_not_available');
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const id = newId('rcode');
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + RECEIPT_LIMITS.codeValidMs);
    await transactionWithRetry(this.deps.ds, async (m) => {
      await lockSessionRow(m, l.s.id);
      const repo = m.getRepository(ReceiptCodeEntity);
      const recent = await repo.find({
        where: {
          sessionId: l.s.id,
          createdAt: MoreThan(new Date(now.getTime() - 3600_000)),
          state: Not('undelivered'),
        },
        order: { createdAt: 'DESC' },
      });
      const last = recent[0];
      if (last && now.getTime() < last.createdAt.getTime() + RECEIPT_LIMITS.codeResendMs)
        throw new AppError('receipt_code_too_soon', undefined, {
          extra: {
            retry_after: Math.ceil(
              (last.createdAt.getTime() + RECEIPT_LIMITS.codeResendMs - now.getTime()) / 1000,
            ),
          },
        });
      if (recent.length >= RECEIPT_LIMITS.codesPerHour) {
        const oldest = recent[recent.length - 1] as ReceiptCodeEntity;
        throw new AppError('receipt_code_limit', undefined, {
          extra: { retry_after: Math.ceil((oldest.createdAt.getTime() + 3600_000 - now.getTime()) / 1000) },
        });
      }
      await m
        .createQueryBuilder()
        .update(ReceiptCodeEntity)
        .set({ state: 'superseded' })
        .where('session_id = :id AND state = :open', { id: l.s.id, open: 'open' })
        .execute();
      await repo.insert({
        id,
        sessionId: l.s.id,
        email: to,
        codeHash: codeHash(id, code),
        attempts: 0,
        state: 'open',
        createdAt: now,
        expiresAt,
      });
    });
    try {
      const words = RECEIPT_EMAIL_WORDS[presentation.lang];
      const business = await this.businessName(l.s);
      await this.mailer().send({
        to,
        subject: words.codeSubject(business, code),
        text: words.codeText(business, code),
      });
    } catch (e) {
      // Nobody received this code: it must not count against the resend delay or the hourly limit, and it
      // can never be used. The signer is told to try again (503 with Retry-After), nothing else changed.
      await this.deps.ds
        .getRepository(ReceiptCodeEntity)
        .update({ id, state: 'open' }, { state: 'undelivered' });
      this.deps.logger.error('receipt code email failed', { session: logTag(l.s.id), error: String(e) });
      throw new AppError(
        'service_unavailable',
        'The email could not be sent right now. Try again in a minute.',
        {
          extra: { retry_after: 60 },
        },
      );
    }
    return this.readState(sessionId, browserToken);
  }

  /**
   * Checks the code (single use; voided after a few wrong tries) and authorizes the emailed receipt in the
   * same transaction, then sends it.
   */
  async verifyCodeAndSend(
    sessionId: string,
    browserToken: string | undefined,
    code: unknown,
    presentation?: ReceiptPresentation,
  ): Promise<ReceiptState> {
    if (typeof code !== 'string' || !/^\d{6}$/.test(code.trim()))
      throw new AppError('validation_failed', 'Enter the six-digit code.', { param: 'code' });
    const l = await this.access.load(sessionId, browserToken);
    this.access.assertOpen(l);
    const now = this.deps.clock.now();
    const outcome = await transactionWithRetry(this.deps.ds, async (m) => {
      await lockSessionRow(m, l.s.id);
      const repo = m.getRepository(ReceiptCodeEntity);
      const open = await repo.findOne({
        where: { sessionId: l.s.id, state: 'open' },
        order: { createdAt: 'DESC' },
      });
      if (!open || open.expiresAt <= now) return { kind: 'expired' as const };
      if (!safeEqual(open.codeHash, codeHash(open.id, code.trim()))) {
        const attempts = open.attempts + 1;
        const voided = attempts >= RECEIPT_LIMITS.codeAttempts;
        await repo.update({ id: open.id }, { attempts, ...(voided ? { state: 'void' as const } : {}) });
        return { kind: 'wrong' as const, left: RECEIPT_LIMITS.codeAttempts - attempts };
      }
      const used = await m
        .createQueryBuilder()
        .update(ReceiptCodeEntity)
        .set({ state: 'used' })
        .where('id = :id AND state = :open', { id: open.id, open: 'open' })
        .execute();
      if (used.affected !== 1) return { kind: 'expired' as const };
      const deliveryId = newId('rdel');
      await m.getRepository(ReceiptDeliveryEntity).insert({
        id: deliveryId,
        sessionId: l.s.id,
        email: open.email,
        state: 'pending',
        linkHash: null,
        createdAt: now,
        sentAt: null,
        // the email, its PDF and any retry by the worker are written in the language of the page that asked
        lang: presentation?.lang ?? null,
        timeZone: presentation?.time_zone ?? null,
      });
      return { kind: 'ok' as const, deliveryId };
    });
    if (outcome.kind === 'expired') throw new AppError('receipt_code_expired');
    if (outcome.kind === 'wrong')
      throw new AppError(
        'receipt_code_invalid',
        outcome.left > 0
          ? `The code is not correct. ${outcome.left} ${outcome.left === 1 ? 'try' : 'tries'} left.`
          : 'The code is not correct and can no longer be used: request a new code.',
        { param: 'code', extra: { attempts_left: outcome.left } },
      );
    // Authorized and committed: a failed send stays queued and the worker retries it (deliverPending), so the
    // signer sees the address as on its way rather than an error for something that will still happen.
    await this.deliver(outcome.deliveryId).catch(() => false);
    return this.readState(sessionId, browserToken);
  }

  /**
   * Sends one authorized delivery: mints its receipt-page link (only the hash is stored), renders the PDF
   * and mails it. A failed send leaves it pending for deliverPending(). Once online access is closed or its
   * 48 h ended, a delivery not yet sent is withdrawn instead (spec §1: only one already in flight may arrive).
   */
  async deliver(deliveryId: string): Promise<boolean> {
    const repo = this.deps.ds.getRepository(ReceiptDeliveryEntity);
    const d = await repo.findOneBy({ id: deliveryId, state: 'pending' });
    if (!d) return false;
    // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard
    const s = await this.deps.ds.getRepository(SessionEntity).findOneBy({ id: d.sessionId });
    if (!s) return false;
    const token = randomToken(32);
    const linkHash = sha256Hex(token);
    // claim: only one sender mints the link and sends
    const claimed = await this.deps.ds
      .createQueryBuilder()
      .update(ReceiptDeliveryEntity)
      .set({ linkHash })
      .where('id = :id AND state = :pending AND link_hash IS NULL', { id: d.id, pending: 'pending' })
      .execute();
    if (claimed.affected !== 1) return false;
    // Checked after the claim: a closure committed from here on finds this send in flight; one committed
    // before it withdraws the delivery, so no retry ever sends after closure or after access ended.
    if (await this.withdrawnByAccess(s, d.id)) return false;
    try {
      const presentation = presentationOfDelivery(d);
      const data = await this.records.receiptData(s, presentation);
      const pdf = Buffer.from(await this.records.renderPdf(data));
      const link = `${this.deps.config.hostedUrl}/r/${token}`;
      const access = this.access.accessOf(s, null).accessUntil;
      const words = RECEIPT_EMAIL_WORDS[(presentation ?? DEFAULT_PRESENTATION).lang];
      await this.mailer().send({
        to: d.email,
        subject: words.receiptSubject(data.business.name, data.partial),
        text: words.receiptText({
          business: data.business.name,
          link,
          until: access ? localTime(access.toISOString(), presentation ?? DEFAULT_PRESENTATION) : null,
        }),
        attachments: [{ filename: receiptFilename(data), contentType: 'application/pdf', content: pdf }],
      });
      await repo.update({ id: d.id }, { state: 'sent', sentAt: this.deps.clock.now() });
      return true;
    } catch (e) {
      await repo.update({ id: d.id }, { linkHash: null });
      this.deps.logger.error('receipt email failed', { session: logTag(s.id), error: String(e) });
      throw e;
    }
  }

  /** Worker pass: sends deliveries left pending by a failed send (bounded batch). */
  async deliverPending(limit = 20): Promise<number> {
    const due = await this.deps.ds.getRepository(ReceiptDeliveryEntity).find({
      where: { state: 'pending', createdAt: LessThan(new Date(this.deps.clock.now().getTime() - 30_000)) },
      order: { createdAt: 'ASC' },
      take: limit,
    });
    // A sender that died between its claim (link minted) and the send leaves the delivery claimed for good:
    // free such a claim once it is clearly not in flight any more (SMTP gives up long before 10 minutes). At
    // worst a very slow sender and the retry both send: a receipt email is delivered at least once.
    const stale = new Date(this.deps.clock.now().getTime() - 10 * 60_000);
    for (const d of due)
      if (d.linkHash && d.createdAt < stale)
        await this.deps.ds
          .createQueryBuilder()
          .update(ReceiptDeliveryEntity)
          .set({ linkHash: null })
          .where('id = :id AND state = :pending AND link_hash = :claim', {
            id: d.id,
            pending: 'pending',
            claim: d.linkHash,
          })
          .execute();
    let sent = 0;
    for (const d of due) if (await this.deliver(d.id).catch(() => false)) sent++;
    return sent;
  }

  /** Withdraws a claimed delivery when online access is closed or ended; true when withdrawn. */
  private async withdrawnByAccess(s: SessionEntity, deliveryId: string): Promise<boolean> {
    const row = await this.deps.ds.getRepository(ReceiptAccessEntity).findOneBy({ sessionId: s.id });
    const { state } = this.access.accessOf(s, row);
    if (state === 'open') return false;
    await this.deps.ds
      .createQueryBuilder()
      .update(ReceiptDeliveryEntity)
      .set({ state: 'withdrawn', linkHash: null })
      .where('id = :id AND state = :pending', { id: deliveryId, pending: 'pending' })
      .execute();
    this.deps.logger.info(`receipt email withdrawn: online access ${state}`, { session: logTag(s.id) });
    return true;
  }

  /** The business's public name, as the receipt shows it (receiptData business.name). */
  private async businessName(s: SessionEntity): Promise<string> {
    return (await pageBrandOf(this.deps.ds, s.businessId, s.environment)).name;
  }

  private mailer(): ReceiptMailer {
    if (!this.deps.mail) throw new AppError('internal_error', 'No mail sender is configured.');
    return this.deps.mail;
  }
}
