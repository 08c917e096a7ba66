// Team and invitations: the people of the business, pending invitations (resend rotates the link, revoke
// kills it) and a form to invite someone with a role.
import { createResource, createSignal, For, Show } from 'solid-js';
import type {
  InviteMutation,
  InviteMutationVariables,
  ResendInvitationMutation,
  ResendInvitationMutationVariables,
  RevokeInvitationMutation,
  RevokeInvitationMutationVariables,
  Role,
  TeamQuery,
  TeamQueryVariables,
} from '../../graphql/generated';
import { environment, gql, operation } from '../api';
import { ActionStatus, createAction } from '../components/action';
import { ConfirmButton } from '../components/ConfirmButton';
import { DataTable } from '../components/DataTable';
import { SelectField, TextField } from '../components/Field';
import DOCUMENT from '../graphql/team.graphql?raw';
import { when } from '../Screen';

const TEAM = operation<TeamQuery, TeamQueryVariables>(DOCUMENT, 'Team');
const INVITE = operation<InviteMutation, InviteMutationVariables>(DOCUMENT, 'Invite');
const REVOKE_INVITATION = operation<RevokeInvitationMutation, RevokeInvitationMutationVariables>(
  DOCUMENT,
  'RevokeInvitation',
);
const RESEND_INVITATION = operation<ResendInvitationMutation, ResendInvitationMutationVariables>(
  DOCUMENT,
  'ResendInvitation',
);

type Invitation = TeamQuery['invitations'][number];

const ROLES: Role[] = ['viewer', 'developer', 'admin', 'owner'];

type InvitationRow = TeamQuery['invitations'][number];

/** Pending: when the link stops working; accepted or revoked: when that happened; expired: since when. */
const invitationTime = (i: InvitationRow): string =>
  i.status === 'accepted' && i.acceptedAt
    ? `Accepted ${when(i.acceptedAt)}`
    : i.status === 'revoked' && i.revokedAt
      ? `Revoked ${when(i.revokedAt)}`
      : i.status === 'expired'
        ? `Expired ${when(i.expiresAt)}`
        : `Expires ${when(i.expiresAt)}`;

export function Team() {
  const [team, { refetch }] = createResource(environment, () => gql(TEAM));
  const [email, setEmail] = createSignal('');
  const [role, setRole] = createSignal<Role>('developer');
  const action = createAction();

  const invite = (e: SubmitEvent) => {
    e.preventDefault();
    const to = email();
    void action.run(async () => {
      await gql(INVITE, { email: to, role: role() });
      setEmail(''); // only once sent: a refused address stays in the field to be corrected
      await refetch();
      return `Invitation sent to ${to}.`;
    });
  };
  const resend = (i: Invitation) =>
    action.run(async () => {
      await gql(RESEND_INVITATION, { id: i.id });
      await refetch();
      return `New link sent to ${i.email}.`;
    });
  const revoke = (i: Invitation) =>
    action.run(async () => {
      await gql(REVOKE_INVITATION, { id: i.id });
      await refetch();
      return `Invitation for ${i.email} revoked.`;
    });

  return (
    <>
      <ActionStatus action={action} />
      <h2 id="members-h">Members</h2>
      <DataTable
        labelledby="members-h"
        rows={team()?.members}
        columns={[
          { header: 'Email', cell: (m) => m.email },
          { header: 'Role', cell: (m) => m.role },
          { header: 'Joined', cell: (m) => when(m.createdAt) },
        ]}
      />
      <h2 id="invitations-h">Invitations</h2>
      <Show when={team()?.invitations.length} fallback={<p class="d-muted">No invitations yet.</p>}>
        <DataTable
          labelledby="invitations-h"
          rows={team()?.invitations}
          columns={[
            { header: 'Email', cell: (i) => i.email },
            { header: 'Role', cell: (i) => i.role },
            { header: 'Status', cell: (i) => i.status },
            // the one time that matters for each status: an accepted invitation no longer expires
            { header: 'When', cell: (i) => invitationTime(i) },
            {
              header: 'Actions',
              srOnly: true,
              class: 'd-actions',
              cell: (i) => (
                <div>
                  <Show when={i.status === 'pending'}>
                    <button type="button" onClick={() => resend(i)}>
                      Resend
                    </button>
                    <ConfirmButton
                      question={`Revoke the invitation for ${i.email}? Its link stops working.`}
                      confirm="Yes, revoke"
                      onConfirm={() => revoke(i)}
                    >
                      Revoke
                    </ConfirmButton>
                  </Show>
                </div>
              ),
            },
          ]}
        />
      </Show>
      <h2>Invite someone</h2>
      <form class="d-form" onSubmit={invite}>
        <TextField
          id="invite-email"
          label="Email address"
          type="email"
          required
          value={email()}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <SelectField
          id="invite-role"
          label="Role"
          hint="Viewers read; developers build in the sandbox; admins also act in production and manage people."
          value={role()}
          onChange={(e) => setRole(e.currentTarget.value as Role)}
        >
          <For each={ROLES}>{(r) => <option value={r}>{r}</option>}</For>
        </SelectField>
        <button type="submit" class="d-primary" disabled={action.busy()}>
          Send invitation
        </button>
      </form>
    </>
  );
}
