// Signing in to the dashboard (ADR 0012): emailed links, passkeys, and the server-side cookie sessions they open
// (token hashed at rest, CSRF token derived from it).
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { type EntityManager, IsNull, MoreThan } from 'typeorm';
import type { Ctx } from '../../common/context';
import { safeEqual } from '../../common/crypto';
import { AppError } from '../../common/errors';
import { newId, randomToken, sha256Hex } from '../../common/ids';
import { transactionWithRetry } from '../../db/data-source';
import { BusinessEntity } from '../tenancy/business.entity';
import {
  DashboardSessionEntity,
  DashboardUserEntity,
  PasskeyEntity,
  SignInLinkEntity,
  WebauthnChallengeEntity,
} from './accounts.entities';
import {
  AccountsPart,
  CHALLENGE_TTL_MS,
  csrfFor,
  normEmail,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  type SessionListItem,
  SIGN_IN_LINK_TTL_MS,
  SIGN_IN_LINKS_PER_HOUR,
  type SignedIn,
  userView,
} from './accounts.shared';
import { mailLang, signInMail } from './mail-language';

export class SignInService extends AccountsPart {
  // ---------------------------------------------------------------- sign-in by emailed link

  /**
   * Mails a one-time sign-in link when the address has an account. The answer never tells whether it has
   * (no account enumeration), so callers always answer 202.
   */
  /** acceptLanguage: the request's Accept-Language; the mail is written in its first language we have (en/de/fr). */
  async requestSignInLink(rawEmail: unknown, acceptLanguage?: unknown): Promise<void> {
    const email = normEmail(rawEmail);
    const user = await this.deps.ds.getRepository(DashboardUserEntity).findOneBy({ email });
    if (!user) return;
    const token = randomToken(32);
    const now = this.now();
    // At most SIGN_IN_LINKS_PER_HOUR links per person and hour, counted in the database (every node sees the
    // same count): nobody can flood an inbox through this public route. The answer stays 202 either way.
    const recent = await this.deps.ds.getRepository(SignInLinkEntity).countBy({
      userId: user.id,
      createdAt: MoreThan(new Date(now.getTime() - 3600_000)),
    });
    if (recent >= SIGN_IN_LINKS_PER_HOUR) return;
    await this.deps.ds.getRepository(SignInLinkEntity).insert({
      id: newId('sil'),
      userId: user.id,
      tokenHash: sha256Hex(token),
      createdAt: now,
      expiresAt: new Date(now.getTime() + SIGN_IN_LINK_TTL_MS),
      usedAt: null,
    });
    // Not awaited (nor the business's name the mail carries): the 202 must take as long for an unknown address
    // as for a known one (no account enumeration by timing). A failed send is logged; the person asks again.
    this.deps.ds
      .getRepository(BusinessEntity)
      .findOneBy({ id: user.businessId })
      .then((business) => {
        const lang = mailLang(acceptLanguage);
        const name =
          business?.name ?? { en: 'your business', de: 'Ihr Unternehmen', fr: 'votre entreprise' }[lang];
        const link = `${this.origin}/dashboard/sign-in#token=${token}`;
        return this.deps.mail.send({ to: email, ...signInMail(lang, name, link) });
      })
      .catch((e: unknown) => this.deps.logger.warn('sign-in link not sent', { error: String(e) }));
  }

  async verifySignInLink(token: unknown, userAgent?: string): Promise<SignedIn> {
    if (typeof token !== 'string' || token.length < 16 || token.length > 200)
      throw new AppError('sign_in_link_invalid');
    const now = this.now();
    const hash = sha256Hex(token);
    return transactionWithRetry(this.deps.ds, async (m) => {
      const link = await m.getRepository(SignInLinkEntity).findOneBy({ tokenHash: hash });
      if (!link) throw new AppError('sign_in_link_invalid');
      const res = await m
        .createQueryBuilder()
        .update(SignInLinkEntity)
        .set({ usedAt: now })
        .where('id = :id AND used_at IS NULL AND expires_at > :now', { id: link.id, now })
        .execute();
      if (res.affected !== 1) throw new AppError('sign_in_link_invalid');
      const user = await m.getRepository(DashboardUserEntity).findOneBy({ id: link.userId });
      if (!user) throw new AppError('sign_in_link_invalid');
      return this.startSession(m, user, 'email_link', userAgent);
    });
  }

  // ---------------------------------------------------------------- cookie sessions

  async startSession(
    m: EntityManager,
    user: DashboardUserEntity,
    method: string,
    userAgent: string | undefined,
  ): Promise<SignedIn> {
    const token = randomToken(32);
    const now = this.now();
    const row = Object.assign(new DashboardSessionEntity(), {
      id: newId('dss'),
      userId: user.id,
      businessId: user.businessId,
      tokenHash: sha256Hex(token),
      method,
      userAgent: userAgent ? userAgent.slice(0, 200) : null,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
      revokedAt: null,
    });
    await m.getRepository(DashboardSessionEntity).insert(row);
    await this.audit(m, {
      businessId: user.businessId,
      actor: { kind: 'user', id: user.id },
      action: 'session.start',
      target: row.id,
      detail: { method },
    });
    return {
      token,
      csrfToken: csrfFor(token),
      sessionId: row.id,
      expiresAt: row.expiresAt,
      user: userView(user),
    };
  }

  /** Test and operator helper: a signed-in session for an existing user (no mail round trip). */
  async signInDirect(userId: string, method = 'service'): Promise<SignedIn> {
    return transactionWithRetry(this.deps.ds, async (m) => {
      const user = await m.getRepository(DashboardUserEntity).findOneBy({ id: userId });
      if (!user) throw new AppError('not_found', 'No such user.');
      return this.startSession(m, user, method, undefined);
    });
  }

  /**
   * Resolves a cookie token to its user and session; null when unknown, revoked, idle too long or past its
   * absolute end. Reads the database every time: a revoke or sign-out is effective at once on every node.
   */
  async resolveSession(
    token: string | undefined,
  ): Promise<{ user: DashboardUserEntity; session: DashboardSessionEntity } | null> {
    if (!token || token.length > 200) return null;
    const session = await this.deps.ds
      .getRepository(DashboardSessionEntity)
      .findOneBy({ tokenHash: sha256Hex(token) });
    if (!session || !safeEqual(session.tokenHash, sha256Hex(token))) return null;
    const now = this.now().getTime();
    if (
      session.revokedAt ||
      session.expiresAt.getTime() <= now ||
      session.lastSeenAt.getTime() + SESSION_IDLE_MS <= now
    )
      return null;
    const user = await this.deps.ds.getRepository(DashboardUserEntity).findOneBy({ id: session.userId });
    if (!user) return null;
    if (now - session.lastSeenAt.getTime() >= 60_000)
      await this.deps.ds
        .getRepository(DashboardSessionEntity)
        .update({ id: session.id, revokedAt: IsNull() }, { lastSeenAt: new Date(now) });
    return { user, session };
  }

  async signOut(token: string | undefined): Promise<void> {
    const found = await this.resolveSession(token);
    if (!found) return;
    await this.revokeSessionRow(
      found.session.businessId,
      found.user.id,
      found.session.id,
      'session.sign_out',
    );
  }

  private async revokeSessionRow(businessId: string, userId: string, sessionId: string, action: string) {
    await transactionWithRetry(this.deps.ds, async (m) => {
      const res = await m
        .getRepository(DashboardSessionEntity)
        .update({ id: sessionId, userId, revokedAt: IsNull() }, { revokedAt: this.now() });
      if (!res.affected) throw new AppError('not_found', 'No such session.');
      await this.audit(m, { businessId, actor: { kind: 'user', id: userId }, action, target: sessionId });
    });
  }

  async listMySessions(ctx: Ctx): Promise<SessionListItem[]> {
    const me = this.userOf(ctx);
    const now = this.now().getTime();
    const rows = await this.deps.ds
      .getRepository(DashboardSessionEntity)
      .find({ where: { userId: me.userId, revokedAt: IsNull() }, order: { createdAt: 'DESC' } });
    return rows
      .filter((s) => s.expiresAt.getTime() > now && s.lastSeenAt.getTime() + SESSION_IDLE_MS > now)
      .map((s) => ({
        id: s.id,
        method: s.method,
        userAgent: s.userAgent,
        createdAt: s.createdAt,
        lastSeenAt: s.lastSeenAt,
        expiresAt: s.expiresAt,
        current: s.id === me.sessionId,
      }));
  }

  async revokeMySession(ctx: Ctx, id: string): Promise<void> {
    const me = this.userOf(ctx);
    await this.revokeSessionRow(me.businessId, me.userId, id, 'session.revoke');
  }

  // ---------------------------------------------------------------- passkeys

  private async newChallenge(purpose: 'register' | 'authenticate', userId: string | null, challenge: string) {
    const now = this.now();
    const id = newId('wac');
    await this.deps.ds.getRepository(WebauthnChallengeEntity).insert({
      id,
      purpose,
      userId,
      challenge,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS),
      usedAt: null,
    });
    return id;
  }

  /** Consumes a challenge once (guarded write); passkey_invalid when unknown, used, expired or of another user. */
  private async useChallenge(
    m: EntityManager,
    id: unknown,
    purpose: string,
    userId: string | null,
  ): Promise<string> {
    if (typeof id !== 'string')
      throw new AppError('validation_failed', 'challenge_id is required.', { param: 'challenge_id' });
    const now = this.now();
    const row = await m.getRepository(WebauthnChallengeEntity).findOneBy({ id });
    if (!row || row.purpose !== purpose || row.userId !== userId) throw new AppError('passkey_invalid');
    const res = await m
      .createQueryBuilder()
      .update(WebauthnChallengeEntity)
      .set({ usedAt: now })
      .where('id = :id AND used_at IS NULL AND expires_at > :now', { id, now })
      .execute();
    if (res.affected !== 1) throw new AppError('passkey_invalid');
    return row.challenge;
  }

  async passkeyRegistrationOptions(ctx: Ctx) {
    const me = this.userOf(ctx);
    const user = await this.me(ctx);
    const existing = await this.deps.ds.getRepository(PasskeyEntity).findBy({ userId: me.userId });
    const options = await generateRegistrationOptions({
      rpName: 'Credential verification dashboard',
      rpID: this.rpId,
      userName: user.email,
      userID: new TextEncoder().encode(me.userId),
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credentialId })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    const challengeId = await this.newChallenge('register', me.userId, options.challenge);
    return { challengeId, options };
  }

  async passkeyRegister(ctx: Ctx, challengeId: unknown, response: unknown): Promise<{ id: string }> {
    const me = this.userOf(ctx);
    // The challenge is spent before verifying, in its own transaction: a failed attempt burns it too.
    const challenge = await transactionWithRetry(this.deps.ds, (m) =>
      this.useChallenge(m, challengeId, 'register', me.userId),
    );
    return transactionWithRetry(this.deps.ds, async (m) => {
      const verified = await verifyRegistrationResponse({
        response: response as RegistrationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: this.origin,
        expectedRPID: this.rpId,
        requireUserVerification: false,
      }).catch(() => ({ verified: false as const }));
      if (!verified.verified) throw new AppError('passkey_invalid');
      const cred = verified.registrationInfo.credential;
      const id = newId('pk');
      await m.getRepository(PasskeyEntity).insert({
        id,
        userId: me.userId,
        credentialId: cred.id,
        publicKey: Buffer.from(cred.publicKey).toString('base64url'),
        counter: cred.counter,
        transports: cred.transports?.join(',') ?? null,
        createdAt: this.now(),
        lastUsedAt: null,
      });
      await this.audit(m, {
        businessId: me.businessId,
        actor: { kind: 'user', id: me.userId },
        action: 'passkey.register',
        target: id,
      });
      return { id };
    });
  }

  /** Discoverable-credential sign-in: no email or user name is asked for. */
  async passkeyAuthenticationOptions() {
    const options = await generateAuthenticationOptions({ rpID: this.rpId, userVerification: 'preferred' });
    const challengeId = await this.newChallenge('authenticate', null, options.challenge);
    return { challengeId, options };
  }

  async passkeySignIn(challengeId: unknown, response: unknown, userAgent?: string): Promise<SignedIn> {
    const r = response as AuthenticationResponseJSON | undefined;
    if (!r || typeof r !== 'object' || typeof r.id !== 'string') throw new AppError('passkey_invalid');
    // The challenge is spent before verifying, in its own transaction: a failed attempt burns it too.
    const challenge = await transactionWithRetry(this.deps.ds, (m) =>
      this.useChallenge(m, challengeId, 'authenticate', null),
    );
    return transactionWithRetry(this.deps.ds, async (m) => {
      const pk = await m.getRepository(PasskeyEntity).findOneBy({ credentialId: r.id });
      if (!pk) throw new AppError('passkey_invalid');
      const verified = await verifyAuthenticationResponse({
        response: r,
        expectedChallenge: challenge,
        expectedOrigin: this.origin,
        expectedRPID: this.rpId,
        credential: {
          id: pk.credentialId,
          publicKey: new Uint8Array(Buffer.from(pk.publicKey, 'base64url')),
          counter: pk.counter,
          transports: pk.transports ? pk.transports.split(',') : undefined,
        },
        requireUserVerification: false,
      }).catch(() => ({ verified: false, authenticationInfo: undefined }));
      if (!verified.verified || !verified.authenticationInfo) throw new AppError('passkey_invalid');
      await m
        .getRepository(PasskeyEntity)
        .update({ id: pk.id }, { counter: verified.authenticationInfo.newCounter, lastUsedAt: this.now() });
      const user = await m.getRepository(DashboardUserEntity).findOneBy({ id: pk.userId });
      if (!user) throw new AppError('passkey_invalid');
      return this.startSession(m, user, 'passkey', userAgent);
    });
  }
}
