// The reader certificates of the service's credential routes, read-only in the dashboard (issue 26, ADR 0049
// amendment): each current certificate of the caller's environment with its route, subject, not-after and days
// left, flagged when it expires within 30 days (the /readyz warning). They belong to the service, not a business;
// owners and admins read them, as the people who ask the operator for a renewal. The operator imports and
// retires them (`pnpm operator reader-cert`).
import { Field, Ctx as GqlCtx, Int, ObjectType, Query, Resolver } from 'type-graphql';
import { tenantOf } from '../../common/context';
import { type AccessRule, Roles } from '../../common/roles';
import type { GqlContext } from '../../graphql/context';

const ADMIN: AccessRule = { sandbox: 'admin', production: 'admin' };

/** What the resolver reads of a certificate (reader-certificates.ts ReaderCertView). */
export interface ReaderCertFacts {
  id: string;
  route: string;
  environment: string;
  domain: string;
  subject: string;
  not_after: string;
  days_left: number;
  retired: string | null;
}

@ObjectType('ReaderCertificate', {
  description: "A reader certificate that signs this environment's ISO 18013-5 requests of a route.",
})
export class ReaderCertificateGql {
  @Field(() => String) id!: string;
  @Field(() => String, { description: 'The credential route whose requests it signs.' }) route!: string;
  @Field(() => String, { description: 'Subject common name (the hosted domain), else the whole subject.' })
  subjectCn!: string;
  @Field(() => String, { description: 'The hosted domain it was imported for.' }) domain!: string;
  @Field(() => String, { description: 'ISO 8601: the earliest not-after of its chain.' }) notAfter!: string;
  @Field(() => Int, { description: 'Whole days until notAfter (negative: expired).' }) daysLeft!: number;
  @Field(() => Boolean, { description: 'Expires within 30 days (or has expired): /readyz warns too.' })
  expiringSoon!: boolean;
}

const cnOf = (subject: string): string => /(?:^|,\s*)CN=([^,]+)/.exec(subject)?.[1]?.trim() ?? subject;

export function createReaderCertificatesResolver(
  certs: { list(): Promise<ReaderCertFacts[]> },
  warnDays: number,
) {
  @Resolver()
  class ReaderCertificatesResolver {
    @Roles(ADMIN)
    @Query(() => [ReaderCertificateGql], {
      description:
        "The current reader certificates of this environment's routes, soonest expiry first (owner/admin).",
    })
    async readerCertificates(@GqlCtx() { ctx }: GqlContext): Promise<ReaderCertificateGql[]> {
      const { environment } = tenantOf(ctx);
      return (await certs.list())
        .filter((c) => c.environment === environment && c.retired === null)
        .sort((a, b) => a.not_after.localeCompare(b.not_after))
        .map((c) => ({
          id: c.id,
          route: c.route,
          subjectCn: cnOf(c.subject),
          domain: c.domain,
          notAfter: c.not_after,
          daysLeft: c.days_left,
          expiringSoon: c.days_left < warnDays,
        }));
    }
  }
  return ReaderCertificatesResolver;
}
