// GraphQL types of the people side of the dashboard. Token and key hashes never appear; the full API key
// appears only in the answer to createApiKey, once.
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';

export enum RoleGql {
  viewer = 'viewer',
  developer = 'developer',
  admin = 'admin',
  owner = 'owner',
}
registerEnumType(RoleGql, {
  name: 'Role',
  description:
    'viewer: reads everything. developer: builds in sandbox (workflows, webhooks, keys). admin: also production, and people. owner: also owners and admins.',
});

export enum ApiKeyScopeGql {
  sessions_create = 'sessions:create',
  sessions_read = 'sessions:read',
  sessions_write = 'sessions:write',
  audits_read = 'audits:read',
}
registerEnumType(ApiKeyScopeGql, { name: 'ApiKeyScope' });

@ObjectType('DashboardUser')
export class DashboardUserGql {
  @Field(() => ID) id!: string;
  @Field(() => String) email!: string;
  @Field(() => RoleGql) role!: string;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType('Business', { description: 'The business of the signed-in dashboard user.' })
export class BusinessGql {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
}

@ObjectType('Invitation')
export class InvitationGql {
  @Field(() => ID) id!: string;
  @Field(() => String) email!: string;
  @Field(() => RoleGql) role!: string;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date, { description: 'Exactly 24 h after creation; resending never moves it.' })
  expiresAt!: Date;
  @Field(() => Date, { nullable: true, description: 'When the invitation was accepted; null until then.' })
  acceptedAt!: Date | null;
  @Field(() => Date, { nullable: true, description: 'When the invitation was revoked; null unless it was.' })
  revokedAt!: Date | null;
  @Field(() => String, { description: 'pending, accepted, revoked or expired.' }) status!: string;
}

@ObjectType('DashboardSession')
export class DashboardSessionGql {
  @Field(() => ID) id!: string;
  @Field(() => String, { description: 'invitation, email_link or passkey.' }) method!: string;
  @Field(() => String, { nullable: true }) userAgent!: string | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) lastSeenAt!: Date;
  @Field(() => Date) expiresAt!: Date;
  @Field(() => Boolean, { description: 'The session of this request.' }) current!: boolean;
}

@ObjectType('ApiKey')
export class ApiKeyGql {
  @Field(() => ID) id!: string;
  @Field(() => String, { description: 'The non-secret start of the key, e.g. sk_sandbox_abc123def456.' })
  prefix!: string;
  @Field(() => String) label!: string;
  @Field(() => String) environment!: string;
  @Field(() => [ApiKeyScopeGql], { nullable: true, description: 'null: a full key.' }) scopes!:
    | string[]
    | null;
  @Field(() => String, { nullable: true, description: 'The dashboard user id that created it.' })
  createdBy!: string | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date, { nullable: true }) lastUsedAt!: Date | null;
  @Field(() => Date, { nullable: true }) revokedAt!: Date | null;
}

@ObjectType('CreatedApiKey')
export class CreatedApiKeyGql {
  @Field(() => String, { description: 'The full key. Shown only here, once; store it now.' }) key!: string;
  @Field(() => ApiKeyGql) apiKey!: ApiKeyGql;
}
