// Owns the people of a business and how they sign in (ADR 0011, 0012): its four parts, built once over the same
// dependencies. Callers use the part they need directly (accounts.members.listMembers, accounts.signIn.…):
//   members.service.ts      users, roles (never without an owner), removal, operator audit
//   invitations.service.ts  owner and member invitations (one-time link, exactly 24 h) and their acceptance
//   sign-in.service.ts      emailed sign-in links, passkeys, server-side cookie sessions (CSRF token derived)
//   api-keys.service.ts     API key management
// (an account audit row in the caller's transaction: accounts.members.audit)
// Every state change is one transaction: its guarded write plus its audit row (accounts.shared.ts).
import type { AccountsDeps } from './accounts.shared';
import { ApiKeysService } from './api-keys.service';
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

export class AccountsService {
  readonly members: MembersService;
  readonly invitations: InvitationsService;
  readonly signIn: SignInService;
  readonly apiKeys: ApiKeysService;

  constructor(deps: AccountsDeps) {
    this.members = new MembersService(deps);
    this.signIn = new SignInService(deps);
    this.invitations = new InvitationsService(deps, this.signIn);
    this.apiKeys = new ApiKeysService(deps);
  }
}
