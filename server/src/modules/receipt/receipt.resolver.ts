// Thin GraphQL operations of the signer (hosted page): receipt state, email code, send, close access. No API
// key: each is a signer operation; ReceiptService authorizes the binding cookie of the session's bound
// browser (SessionTransport.bindingOf). PDF and originals are plain GET downloads (receipt.rest.ts).
import { Arg, Ctx as GqlCtx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { readCookie } from '../../common/cookies';
import { SignerOperation } from '../../graphql/authorization';
import type { GqlContext } from '../../graphql/context';
import { BROWSER_COOKIE } from '../signer/browser-cookie';
import { type ReceiptAccessGql, SignerReceiptGql } from './receipt.graphql';
import type { ReceiptService, ReceiptState } from './receipt.service';
import { presentationOf } from './receipt.words';

const tokenOf = (c: GqlContext): string | undefined =>
  c.req ? readCookie(c.req, BROWSER_COOKIE) : undefined;

const out = (sessionId: string, s: ReceiptState): SignerReceiptGql => ({
  sessionId,
  sessionStatus: s.session_status,
  environment: s.environment,
  partial: s.partial,
  completedSteps: s.completed_steps,
  totalSteps: s.total_steps,
  access: s.access as ReceiptAccessGql,
  accessUntil: s.access_until,
  pdfDownloaded: s.pdf_downloaded,
  canClose: s.can_close,
  receiptUrl: s.receipt_url,
  originals: s.originals.map((o) => ({
    position: o.position,
    stage: o.stage,
    label: o.label,
    sha256: o.sha256,
    size: o.size,
    contentType: o.content_type,
    url: o.url,
  })),
  email: {
    codeSentTo: s.email.code_sent_to,
    codeExpiresAt: s.email.code_expires_at,
    resendAvailableAt: s.email.resend_available_at,
    codesLeftThisHour: s.email.codes_left_this_hour,
    sentTo: s.email.sent_to,
  },
});

const LANG = 'The hosted page’s language (en, de, fr) for the email and its PDF; anything else: en.';
const TIME_ZONE = 'The browser’s IANA time zone for the times in the email and its PDF; unknown: UTC.';

export function createReceiptResolver(receipts: ReceiptService) {
  @Resolver()
  class ReceiptResolver {
    @Query(() => SignerReceiptGql, { description: 'The signer’s record of a session (bound browser only).' })
    @SignerOperation()
    async signerReceipt(
      @Arg('sessionId', () => ID) sessionId: string,
      @GqlCtx() c: GqlContext,
    ): Promise<SignerReceiptGql> {
      return out(sessionId, await receipts.state(sessionId, tokenOf(c)));
    }

    @Mutation(() => SignerReceiptGql, {
      description:
        'Sends a six-digit code to verify an email address (10 min; resend after 1 min; 5 per hour).',
    })
    @SignerOperation()
    async requestReceiptEmailCode(
      @Arg('sessionId', () => ID) sessionId: string,
      @Arg('email', () => String) email: string,
      @Arg('lang', () => String, { nullable: true, description: LANG }) lang: string | null | undefined,
      @Arg('timeZone', () => String, { nullable: true, description: TIME_ZONE }) timeZone:
        | string
        | null
        | undefined,
      @GqlCtx() c: GqlContext,
    ): Promise<SignerReceiptGql> {
      return out(
        sessionId,
        await receipts.requestCode(sessionId, tokenOf(c), email, presentationOf(lang, timeZone)),
      );
    }

    @Mutation(() => SignerReceiptGql, { description: 'Checks the code, then emails the receipt PDF.' })
    @SignerOperation()
    async sendReceiptEmail(
      @Arg('sessionId', () => ID) sessionId: string,
      @Arg('code', () => String) code: string,
      @Arg('lang', () => String, { nullable: true, description: LANG }) lang: string | null | undefined,
      @Arg('timeZone', () => String, { nullable: true, description: TIME_ZONE }) timeZone:
        | string
        | null
        | undefined,
      @GqlCtx() c: GqlContext,
    ): Promise<SignerReceiptGql> {
      return out(
        sessionId,
        await receipts.verifyCodeAndSend(
          sessionId,
          tokenOf(c),
          code,
          lang != null || timeZone != null ? presentationOf(lang, timeZone) : undefined,
        ),
      );
    }

    @Mutation(() => SignerReceiptGql, {
      description: 'Permanently closes online access (downloads, reads, emails, receipt links).',
    })
    @SignerOperation()
    async closeReceiptAccess(
      @Arg('sessionId', () => ID) sessionId: string,
      @GqlCtx() c: GqlContext,
    ): Promise<SignerReceiptGql> {
      return out(sessionId, await receipts.close(sessionId, tokenOf(c)));
    }
  }
  return ReceiptResolver;
}
