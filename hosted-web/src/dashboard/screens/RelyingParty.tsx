// The business as the relying party (issue 19, ADR 0035): what a wallet shows about who is asking (display
// name, legal name, contact, privacy policy) and why (the purpose), per environment. Owners and admins save;
// anyone else sees the server's role_insufficient answer.
import { createEffect, createResource, createSignal, on, Show } from 'solid-js';
import type {
  RelyingPartyScreenQuery,
  RelyingPartyScreenQueryVariables,
  SetRelyingPartyMutation,
  SetRelyingPartyMutationVariables,
} from '../../graphql/generated';
import { environment, gql, operation } from '../api';
import { ActionStatus, createAction } from '../components/action';
import { TextField } from '../components/Field';
import DOCUMENT from '../graphql/relying-party.graphql?raw';
import { ErrorNote } from '../Screen';

const RELYING_PARTY = operation<RelyingPartyScreenQuery, RelyingPartyScreenQueryVariables>(
  DOCUMENT,
  'RelyingPartyScreen',
);
const SET_RELYING_PARTY = operation<SetRelyingPartyMutation, SetRelyingPartyMutationVariables>(
  DOCUMENT,
  'SetRelyingParty',
);

type Fields = 'legalName' | 'displayName' | 'contactEmail' | 'privacyPolicyUrl' | 'purpose';
const FIELDS: Fields[] = ['displayName', 'legalName', 'contactEmail', 'privacyPolicyUrl', 'purpose'];
const empty = (): Record<Fields, string> => ({
  legalName: '',
  displayName: '',
  contactEmail: '',
  privacyPolicyUrl: '',
  purpose: '',
});

export function RelyingParty() {
  const [data] = createResource(environment, () => gql(RELYING_PARTY));
  const [form, setForm] = createSignal(empty());
  createEffect(
    on(
      () => data()?.relyingParty,
      (rp) => {
        if (!rp) return;
        const next = empty();
        for (const f of FIELDS) next[f] = rp[f] ?? '';
        setForm(next);
      },
    ),
  );
  const set = (f: Fields) => (e: { currentTarget: { value: string } }) =>
    setForm({ ...form(), [f]: e.currentTarget.value });
  const action = createAction();
  const save = (e: SubmitEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const input = Object.fromEntries(FIELDS.map((f) => [f, form()[f].trim() || null]));
      await gql(SET_RELYING_PARTY, { input });
      return 'Saved. Wallets show it on the next request.';
    });
  };
  return (
    <>
      <p class="d-muted">
        What a wallet shows about who is asking and why, in <strong>{environment()}</strong>. Sandbox requests
        carry it in a registration certificate; owners and admins can change it.
      </p>
      <Show when={data.error}>{(e) => <ErrorNote error={e()} />}</Show>
      <form class="d-form" onSubmit={save}>
        <TextField
          id="rp-display-name"
          label="Display name (empty: your business name)"
          maxlength="80"
          value={form().displayName}
          onInput={set('displayName')}
        />
        <TextField
          id="rp-legal-name"
          label="Legal name"
          maxlength="200"
          value={form().legalName}
          onInput={set('legalName')}
        />
        <TextField
          id="rp-contact"
          label="Contact email"
          type="email"
          value={form().contactEmail}
          onInput={set('contactEmail')}
        />
        <TextField
          id="rp-privacy"
          label="Privacy policy URL"
          hint="https:// only"
          type="url"
          value={form().privacyPolicyUrl}
          onInput={set('privacyPolicyUrl')}
        />
        <label for="rp-purpose">Purpose (shown by the wallet, at most 300 characters)</label>
        <textarea id="rp-purpose" maxLength={300} rows={3} value={form().purpose} onInput={set('purpose')} />
        <button type="submit" class="d-primary" disabled={action.busy()}>
          Save
        </button>
      </form>
      <ActionStatus action={action} />
    </>
  );
}
