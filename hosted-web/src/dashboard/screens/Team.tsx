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
import { dt } from '../i18n';
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
    ? dt('team.accepted', { when: when(i.acceptedAt) })
    : i.status === 'revoked' && i.revokedAt
      ? dt('team.revoked', { when: when(i.revokedAt) })
      : i.status === 'expired'
        ? dt('team.expired', { when: when(i.expiresAt) })
        : dt('team.expires', { when: when(i.expiresAt) });
/** A role or invitation status in words (English keeps the code, as before). */
const roleWords = (r: string): string => (ROLES.includes(r as Role) ? dt(`team.r.${r as Role}`) : r);
const statusWords = (s: string): string =>
  ['pending', 'accepted', 'revoked', 'expired'].includes(s)
    ? dt(`team.s.${s as 'pending' | 'accepted' | 'revoked' | 'expired'}`)
    : s;

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
      return dt('team.sent', { email: to });
    });
  };
  const resend = (i: Invitation) =>
    action.run(async () => {
      await gql(RESEND_INVITATION, { id: i.id });
      await refetch();
      return dt('team.resent', { email: i.email });
    });
  const revoke = (i: Invitation) =>
    action.run(async () => {
      await gql(REVOKE_INVITATION, { id: i.id });
      await refetch();
      return dt('team.revokedFor', { email: i.email });
    });

  return (
    <>
      <ActionStatus action={action} />
      <h2 id="members-h">{dt('team.members')}</h2>
      <DataTable
        labelledby="members-h"
        rows={team()?.members}
        columns={[
          { header: dt('team.email'), cell: (m) => m.email },
          { header: dt('team.role'), cell: (m) => roleWords(m.role) },
          { header: dt('team.joined'), cell: (m) => when(m.createdAt) },
        ]}
      />
      <h2 id="invitations-h">{dt('team.invitations')}</h2>
      <Show when={team()?.invitations.length} fallback={<p class="d-muted">{dt('team.noInvitations')}</p>}>
        <DataTable
          labelledby="invitations-h"
          rows={team()?.invitations}
          columns={[
            { header: dt('team.email'), cell: (i) => i.email },
            { header: dt('team.role'), cell: (i) => roleWords(i.role) },
            { header: dt('team.status'), cell: (i) => statusWords(i.status) },
            // the one time that matters for each status: an accepted invitation no longer expires
            { header: dt('team.when'), cell: (i) => invitationTime(i) },
            {
              header: dt('team.actions'),
              srOnly: true,
              class: 'd-actions',
              cell: (i) => (
                <div>
                  <Show when={i.status === 'pending'}>
                    <button type="button" onClick={() => resend(i)}>
                      {dt('team.resend')}
                    </button>
                    <ConfirmButton
                      question={dt('team.revokeQ', { email: i.email })}
                      confirm={dt('team.revokeYes')}
                      onConfirm={() => revoke(i)}
                    >
                      {dt('team.revoke')}
                    </ConfirmButton>
                  </Show>
                </div>
              ),
            },
          ]}
        />
      </Show>
      <h2>{dt('team.invite')}</h2>
      <form class="d-form" onSubmit={invite}>
        <TextField
          id="invite-email"
          label={dt('team.emailAddress')}
          type="email"
          required
          value={email()}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <SelectField
          id="invite-role"
          label={dt('team.role')}
          hint={dt('team.roleHint')}
          value={role()}
          onChange={(e) => setRole(e.currentTarget.value as Role)}
        >
          <For each={ROLES}>{(r) => <option value={r}>{roleWords(r)}</option>}</For>
        </SelectField>
        <button type="submit" class="d-primary" disabled={action.busy()}>
          {dt('team.send')}
        </button>
      </form>
    </>
  );
}
