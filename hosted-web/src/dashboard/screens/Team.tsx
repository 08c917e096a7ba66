// Team and invitations: the people of the business, pending invitations (resend rotates the link, revoke
// kills it) and a form to invite someone with a role.
import { createResource, createSignal, For, Show } from 'solid-js';
import { environment, gql } from '../api';
import {
  INVITE,
  type Invitation,
  RESEND_INVITATION,
  REVOKE_INVITATION,
  type Role,
  TEAM,
  type TeamData,
} from '../queries';
import { ErrorNote, when } from '../Screen';

const ROLES: Role[] = ['viewer', 'developer', 'admin', 'owner'];

export function Team() {
  const [team, { refetch }] = createResource(environment, () => gql<TeamData>(TEAM));
  const [email, setEmail] = createSignal('');
  const [role, setRole] = createSignal<Role>('developer');
  const [error, setError] = createSignal<unknown>(null);
  const [notice, setNotice] = createSignal('');

  const act = async (f: () => Promise<unknown>, done: string) => {
    setError(null);
    setNotice('');
    try {
      await f();
      setNotice(done);
      await refetch();
    } catch (e) {
      setError(e);
    }
  };

  const invite = (e: SubmitEvent) => {
    e.preventDefault();
    void act(() => gql(INVITE, { email: email(), role: role() }), `Invitation sent to ${email()}.`).then(() =>
      setEmail(''),
    );
  };

  const pending = (i: Invitation) => i.status === 'pending';

  return (
    <>
      <Show when={error()}>{(e) => <ErrorNote error={e()} />}</Show>
      <Show when={notice()}>
        <p role="status" class="d-ok">
          {notice()}
        </p>
      </Show>
      <h2 id="members-h">Members</h2>
      <div class="d-table-wrap">
        <table aria-labelledby="members-h">
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
            </tr>
          </thead>
          <tbody>
            <For each={team()?.members}>
              {(m) => (
                <tr>
                  <td>{m.email}</td>
                  <td>{m.role}</td>
                  <td>{when(m.createdAt)}</td>
                </tr>
              )}
            </For>
          </tbody>
        </table>
      </div>
      <h2 id="invitations-h">Invitations</h2>
      <Show when={team()?.invitations.length} fallback={<p class="d-muted">No invitations yet.</p>}>
        <div class="d-table-wrap">
          <table aria-labelledby="invitations-h">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span class="d-sr">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              <For each={team()?.invitations}>
                {(i) => (
                  <tr>
                    <td>{i.email}</td>
                    <td>{i.role}</td>
                    <td>{i.status}</td>
                    <td>{when(i.expiresAt)}</td>
                    <td class="d-actions">
                      <div>
                        <Show when={pending(i)}>
                          <button
                            type="button"
                            onClick={() =>
                              act(() => gql(RESEND_INVITATION, { id: i.id }), `New link sent to ${i.email}.`)
                            }
                          >
                            Resend
                          </button>
                          <button
                            type="button"
                            class="d-danger"
                            onClick={() =>
                              act(
                                () => gql(REVOKE_INVITATION, { id: i.id }),
                                `Invitation for ${i.email} revoked.`,
                              )
                            }
                          >
                            Revoke
                          </button>
                        </Show>
                      </div>
                    </td>
                  </tr>
                )}
              </For>
            </tbody>
          </table>
        </div>
      </Show>
      <h2>Invite someone</h2>
      <form class="d-form" onSubmit={invite}>
        <label for="invite-email">Email address</label>
        <input
          id="invite-email"
          type="email"
          required
          value={email()}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <label for="invite-role">Role</label>
        <select id="invite-role" value={role()} onChange={(e) => setRole(e.currentTarget.value as Role)}>
          <For each={ROLES}>{(r) => <option value={r}>{r}</option>}</For>
        </select>
        <button type="submit" class="d-primary">
          Send invitation
        </button>
      </form>
    </>
  );
}
