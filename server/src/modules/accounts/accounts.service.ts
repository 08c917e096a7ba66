// Owns the people of a business and how they sign in (ADR 0011, 0012). A thin facade over its four parts, so the
// resolvers, REST controllers, operator CLI, quickstart and tests keep one service to call:
//   members.service.ts      users, roles (never without an owner), removal, operator audit
//   invitations.service.ts  owner and member invitations (one-time link, exactly 24 h) and their acceptance
//   sign-in.service.ts      emailed sign-in links, passkeys, server-side cookie sessions (CSRF token derived)
//   api-keys.service.ts     API key management
// Every state change is one transaction: its guarded write plus its audit row (accounts.shared.ts).
import type { EntityManager } from 'typeorm';
import { type AccountsDeps, AccountsPart } from './accounts.shared';
import { ApiKeysService } from './api-keys.service';
import type { AccountAuditEntry } from './audit';
import { InvitationsService } from './invitations.service';
import { MembersService } from './members.service';
import { SignInService } from './sign-in.service';

export {
  type AccountMailer,
  type ApiKeyView,
  csrfFor,
  INVITATION_TTL_MS,
  type InvitationView,
  parseRole,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  type SessionListItem,
  SIGN_IN_LINKS_PER_HOUR,
  type SignedIn,
  type UserView,
} from './accounts.shared';

type Args<T, K extends keyof T> = T[K] extends (...a: infer A) => unknown ? A : never;
type Ret<T, K extends keyof T> = T[K] extends (...a: never[]) => infer R ? R : never;

export class AccountsService {
  readonly members: MembersService;
  readonly invitations: InvitationsService;
  readonly signIn: SignInService;
  readonly apiKeys: ApiKeysService;
  private readonly auditor: AccountsPart;

  constructor(deps: AccountsDeps) {
    this.members = new MembersService(deps);
    this.signIn = new SignInService(deps);
    this.invitations = new InvitationsService(deps, this.signIn);
    this.apiKeys = new ApiKeysService(deps);
    this.auditor = this.members;
  }

  /** Writes an account audit row in the caller's transaction. */
  audit(m: EntityManager, e: AccountAuditEntry): Promise<void> {
    return this.auditor.audit(m, e);
  }

  // ---------------------------------------------------------------- MembersService
  createUserDirect(...a: Args<MembersService, 'createUserDirect'>): Ret<MembersService, 'createUserDirect'> {
    return this.members.createUserDirect(...a) as Ret<MembersService, 'createUserDirect'>;
  }
  recordOperatorAction(
    ...a: Args<MembersService, 'recordOperatorAction'>
  ): Ret<MembersService, 'recordOperatorAction'> {
    return this.members.recordOperatorAction(...a) as Ret<MembersService, 'recordOperatorAction'>;
  }
  operatorAudit(...a: Args<MembersService, 'operatorAudit'>): Ret<MembersService, 'operatorAudit'> {
    return this.members.operatorAudit(...a) as Ret<MembersService, 'operatorAudit'>;
  }
  listMembers(...a: Args<MembersService, 'listMembers'>): Ret<MembersService, 'listMembers'> {
    return this.members.listMembers(...a) as Ret<MembersService, 'listMembers'>;
  }
  setMemberRole(...a: Args<MembersService, 'setMemberRole'>): Ret<MembersService, 'setMemberRole'> {
    return this.members.setMemberRole(...a) as Ret<MembersService, 'setMemberRole'>;
  }
  removeMember(...a: Args<MembersService, 'removeMember'>): Ret<MembersService, 'removeMember'> {
    return this.members.removeMember(...a) as Ret<MembersService, 'removeMember'>;
  }
  me(...a: Args<MembersService, 'me'>): Ret<MembersService, 'me'> {
    return this.members.me(...a) as Ret<MembersService, 'me'>;
  }
  business(...a: Args<MembersService, 'business'>): Ret<MembersService, 'business'> {
    return this.members.business(...a) as Ret<MembersService, 'business'>;
  }

  // ---------------------------------------------------------------- InvitationsService
  createBusinessWithOwner(
    ...a: Args<InvitationsService, 'createBusinessWithOwner'>
  ): Ret<InvitationsService, 'createBusinessWithOwner'> {
    return this.invitations.createBusinessWithOwner(...a) as Ret<
      InvitationsService,
      'createBusinessWithOwner'
    >;
  }
  quickstartOwnerLink(
    ...a: Args<InvitationsService, 'quickstartOwnerLink'>
  ): Ret<InvitationsService, 'quickstartOwnerLink'> {
    return this.invitations.quickstartOwnerLink(...a) as Ret<InvitationsService, 'quickstartOwnerLink'>;
  }
  invite(...a: Args<InvitationsService, 'invite'>): Ret<InvitationsService, 'invite'> {
    return this.invitations.invite(...a) as Ret<InvitationsService, 'invite'>;
  }
  resendInvitation(
    ...a: Args<InvitationsService, 'resendInvitation'>
  ): Ret<InvitationsService, 'resendInvitation'> {
    return this.invitations.resendInvitation(...a) as Ret<InvitationsService, 'resendInvitation'>;
  }
  revokeInvitation(
    ...a: Args<InvitationsService, 'revokeInvitation'>
  ): Ret<InvitationsService, 'revokeInvitation'> {
    return this.invitations.revokeInvitation(...a) as Ret<InvitationsService, 'revokeInvitation'>;
  }
  listInvitations(
    ...a: Args<InvitationsService, 'listInvitations'>
  ): Ret<InvitationsService, 'listInvitations'> {
    return this.invitations.listInvitations(...a) as Ret<InvitationsService, 'listInvitations'>;
  }
  describeInvitation(
    ...a: Args<InvitationsService, 'describeInvitation'>
  ): Ret<InvitationsService, 'describeInvitation'> {
    return this.invitations.describeInvitation(...a) as Ret<InvitationsService, 'describeInvitation'>;
  }
  acceptInvitation(
    ...a: Args<InvitationsService, 'acceptInvitation'>
  ): Ret<InvitationsService, 'acceptInvitation'> {
    return this.invitations.acceptInvitation(...a) as Ret<InvitationsService, 'acceptInvitation'>;
  }

  // ---------------------------------------------------------------- SignInService
  requestSignInLink(...a: Args<SignInService, 'requestSignInLink'>): Ret<SignInService, 'requestSignInLink'> {
    return this.signIn.requestSignInLink(...a) as Ret<SignInService, 'requestSignInLink'>;
  }
  verifySignInLink(...a: Args<SignInService, 'verifySignInLink'>): Ret<SignInService, 'verifySignInLink'> {
    return this.signIn.verifySignInLink(...a) as Ret<SignInService, 'verifySignInLink'>;
  }
  signInDirect(...a: Args<SignInService, 'signInDirect'>): Ret<SignInService, 'signInDirect'> {
    return this.signIn.signInDirect(...a) as Ret<SignInService, 'signInDirect'>;
  }
  resolveSession(...a: Args<SignInService, 'resolveSession'>): Ret<SignInService, 'resolveSession'> {
    return this.signIn.resolveSession(...a) as Ret<SignInService, 'resolveSession'>;
  }
  signOut(...a: Args<SignInService, 'signOut'>): Ret<SignInService, 'signOut'> {
    return this.signIn.signOut(...a) as Ret<SignInService, 'signOut'>;
  }
  listMySessions(...a: Args<SignInService, 'listMySessions'>): Ret<SignInService, 'listMySessions'> {
    return this.signIn.listMySessions(...a) as Ret<SignInService, 'listMySessions'>;
  }
  revokeMySession(...a: Args<SignInService, 'revokeMySession'>): Ret<SignInService, 'revokeMySession'> {
    return this.signIn.revokeMySession(...a) as Ret<SignInService, 'revokeMySession'>;
  }
  passkeyRegistrationOptions(
    ...a: Args<SignInService, 'passkeyRegistrationOptions'>
  ): Ret<SignInService, 'passkeyRegistrationOptions'> {
    return this.signIn.passkeyRegistrationOptions(...a) as Ret<SignInService, 'passkeyRegistrationOptions'>;
  }
  passkeyRegister(...a: Args<SignInService, 'passkeyRegister'>): Ret<SignInService, 'passkeyRegister'> {
    return this.signIn.passkeyRegister(...a) as Ret<SignInService, 'passkeyRegister'>;
  }
  passkeyAuthenticationOptions(
    ...a: Args<SignInService, 'passkeyAuthenticationOptions'>
  ): Ret<SignInService, 'passkeyAuthenticationOptions'> {
    return this.signIn.passkeyAuthenticationOptions(...a) as Ret<
      SignInService,
      'passkeyAuthenticationOptions'
    >;
  }
  passkeySignIn(...a: Args<SignInService, 'passkeySignIn'>): Ret<SignInService, 'passkeySignIn'> {
    return this.signIn.passkeySignIn(...a) as Ret<SignInService, 'passkeySignIn'>;
  }

  // ---------------------------------------------------------------- ApiKeysService
  listApiKeys(...a: Args<ApiKeysService, 'listApiKeys'>): Ret<ApiKeysService, 'listApiKeys'> {
    return this.apiKeys.listApiKeys(...a) as Ret<ApiKeysService, 'listApiKeys'>;
  }
  createApiKey(...a: Args<ApiKeysService, 'createApiKey'>): Ret<ApiKeysService, 'createApiKey'> {
    return this.apiKeys.createApiKey(...a) as Ret<ApiKeysService, 'createApiKey'>;
  }
  revokeApiKey(...a: Args<ApiKeysService, 'revokeApiKey'>): Ret<ApiKeysService, 'revokeApiKey'> {
    return this.apiKeys.revokeApiKey(...a) as Ret<ApiKeysService, 'revokeApiKey'>;
  }
}
