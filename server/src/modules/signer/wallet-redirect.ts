// Owns the same-device redirect of OpenID4VP 1.0 §8.2 (issue 26, ADR 0050 "Same-device redirect"): after the
// wallet's direct_post.jwt answer was verified (the step completes at that POST, through the one completion
// path), the response endpoint answers `{redirect_uri}` to the hosted page with a fresh, unguessable
// `response_code` in the fragment. The hosted page presents the code with its binding cookie (ADR 0007/0028);
// the outcome is shown only to the browser the session is bound to. The code is single-use (burned by its
// first presentation, whichever browser) and expires after REDIRECT_CODE_TTL_MS.
import { createHash, randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import type { Clock } from '../../common/clock';
import { AppError } from '../../common/errors';
import { WalletRequestEntity } from '../verification/wallet-request.entity';
import type { SessionTransport } from './signer.transport';
import { WalletRedirectEntity } from './wallet-redirect.entity';

/** How long the wallet's redirect may take to reach the browser. */
export const REDIRECT_CODE_TTL_MS = 10 * 60 * 1000;

const hashOf = (code: string) => createHash('sha256').update(code).digest('hex');
const isCode = (v: unknown): v is string => typeof v === 'string' && /^[A-Za-z0-9_-]{43}$/.test(v);

/** The hosted page's return path of a session (hosted-web App.tsx `/s/{id}/return`). */
export function returnPathOf(sessionId: string): string {
  return `/s/${encodeURIComponent(sessionId)}/return`;
}

/** POST /t/sessions/{id}/wallet-redirect: the code the wallet's redirect carried in its fragment. */
export const WalletRedirectRequestSchema = z.object({
  response_code: z.string({ error: 'response_code is required.' }),
});

/** What the bound browser is shown after the redirect: where the session is now. */
export const WalletRedirectOutcomeSchema = z.object({
  session_id: z.string(),
  /** The session's status after the wallet's answer (`completed`, or `in_progress` at the next step). */
  status: z.string(),
  /** The current stage (1-based index of the step now waiting, or the last one when completed). */
  stage: z.number().int().nonnegative(),
});
export type RedirectOutcome = z.infer<typeof WalletRedirectOutcomeSchema>;

export class WalletRedirects {
  constructor(
    private readonly deps: {
      ds: DataSource;
      clock: Clock;
      hostedUrl: string;
      transport: Pick<SessionTransport, 'read' | 'bindingOf'>;
    },
  ) {}

  /** A fresh response_code for the answered request `requestId`; the redirect_uri the wallet is sent to. */
  async issue(requestId: string): Promise<string> {
    // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard
    const req = await this.deps.ds.getRepository(WalletRequestEntity).findOneBy({ id: requestId });
    if (!req) throw new AppError('request_not_found');
    const code = randomBytes(32).toString('base64url');
    const now = this.deps.clock.now();
    await this.deps.ds.getRepository(WalletRedirectEntity).insert({
      codeHash: hashOf(code),
      sessionId: req.sessionId,
      requestId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + REDIRECT_CODE_TTL_MS),
      usedAt: null,
    });
    return `${this.deps.hostedUrl}${returnPathOf(req.sessionId)}#response_code=${code}`;
  }

  /**
   * The browser presenting `code` for session `id`: burns the code, then shows the outcome only when the
   * browser is the session's bound one (else `redirect_other_browser`, nothing about the session). An unknown,
   * used, expired or other-session code is `request_not_found`.
   */
  async redeem(id: string, code: unknown, browserToken: string | undefined): Promise<RedirectOutcome> {
    if (!isCode(code)) throw new AppError('request_not_found', 'This return link is not valid.');
    const now = this.deps.clock.now();
    const burned = await this.deps.ds
      .createQueryBuilder()
      .update(WalletRedirectEntity)
      .set({ usedAt: now })
      .where('code_hash = :h AND session_id = :id AND used_at IS NULL AND expires_at > :now', {
        h: hashOf(code),
        id,
        now,
      })
      .execute();
    if (burned.affected !== 1)
      throw new AppError('request_not_found', 'This return link was already used or has run out.');
    const { session } = await this.deps.transport.read(id, browserToken ?? '');
    if (this.deps.transport.bindingOf(session, browserToken) !== 'this_browser')
      throw new AppError('redirect_other_browser');
    return { session_id: session.id, status: session.status, stage: session.currentStage };
  }
}
