// The business as the relying party (issue 19, ADR 0035): what a wallet shows about who is asking (display
// name, legal name, contact, privacy policy) and why (the purpose), per environment. Owners and admins save;
// anyone else sees the server's role_insufficient answer.
import { createEffect, createResource, createSignal, on, Show } from 'solid-js';
import type {
  RelyingPartyScreenQuery,
  RelyingPartyScreenQueryVariables,
  RelyingPartyWalletsQuery,
  RelyingPartyWalletsQueryVariables,
  SetRelyingPartyMutation,
  SetRelyingPartyMutationVariables,
} from '../../graphql/generated';
import { environment, gql, operation } from '../api';
import { ActionStatus, createAction } from '../components/action';
import { TextField } from '../components/Field';
import { fieldErrorOf } from '../components/field-error';
import { ReaderCertificates } from '../components/ReaderCertificates';
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

const WALLETS = operation<RelyingPartyWalletsQuery, RelyingPartyWalletsQueryVariables>(
  DOCUMENT,
  'RelyingPartyWallets',
);
type Wallets = RelyingPartyWalletsQuery['relyingPartyWallets'];

/** Each field's refusal in words (the server's param names the field). */
const WORDS: Record<string, string> = {
  displayName: 'Enter a display name of 1 to 80 characters, or leave it empty to use your business name.',
  legalName: 'Enter the legal name with 1 to 200 characters, or leave it empty.',
  contactEmail: 'Enter an email address people can write to, such as privacy@example.com, or leave it empty.',
  privacyPolicyUrl:
    'Enter the full address of your privacy policy, starting with https:// and without a user name or password in it.',
  purpose: 'Enter a purpose of at most 300 characters, or leave it empty.',
};

/** What a save does for wallets, in words: the truth per the server's answer (ADR 0052). */
export function walletsWords(w: Wallets): string {
  if (w.source === 'registrar')
    return `Wallets show “${w.walletName ?? w.pageName}” and these details from the next request on; your hosted page shows the same name.`;
  if (w.source === 'imported')
    return `Wallets show “${w.walletName ?? 'the imported name'}” from the registration certificate your operator imported for this environment: changes here reach wallets only after the operator imports a new one (pnpm operator registration-cert import). Your hosted page shows “${w.pageName}”.`;
  return `Wallets do not show these details yet: requests in this environment carry no registration certificate, so a wallet shows only the service's address. An operator turns this on (sandbox: pnpm operator registrar rotate; production: a certificate from a registrar, pnpm operator registration-cert import). Your hosted page shows “${w.pageName}”.`;
}

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
  const [wallets, setWallets] = createSignal<Wallets | null>(null);
  createEffect(() => setWallets(data()?.relyingPartyWallets ?? null));
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
  const err = (f: string) => fieldErrorOf(action.error(), f, WORDS);
  const save = (e: SubmitEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const input = Object.fromEntries(FIELDS.map((f) => [f, form()[f].trim() || null]));
      await gql(SET_RELYING_PARTY, { input });
      const w = (await gql(WALLETS)).relyingPartyWallets;
      setWallets(w);
      return `Saved. ${walletsWords(w)}`;
    });
  };
  return (
    <>
      <p class="d-muted">
        What a wallet shows about who is asking and why, in <strong>{environment()}</strong>. The display name
        is also the name your hosted page shows. Owners and admins can change it.
      </p>
      <Show when={data.error}>{(e) => <ErrorNote error={e()} />}</Show>
      <Show when={wallets()}>
        {(w) => (
          <p class="d-note" data-testid="rp-wallets">
            {walletsWords(w())}
          </p>
        )}
      </Show>
      <form class="d-form" onSubmit={save}>
        <TextField
          id="rp-display-name"
          error={err('displayName')}
          label="Display name (empty: your business name)"
          maxlength="80"
          value={form().displayName}
          onInput={set('displayName')}
        />
        <TextField
          id="rp-legal-name"
          error={err('legalName')}
          label="Legal name"
          maxlength="200"
          value={form().legalName}
          onInput={set('legalName')}
        />
        <TextField
          id="rp-contact"
          error={err('contactEmail')}
          label="Contact email"
          type="email"
          value={form().contactEmail}
          onInput={set('contactEmail')}
        />
        <TextField
          id="rp-privacy"
          error={err('privacyPolicyUrl')}
          label="Privacy policy URL"
          hint="https:// only"
          type="url"
          value={form().privacyPolicyUrl}
          onInput={set('privacyPolicyUrl')}
        />
        <label for="rp-purpose">Purpose (shown by the wallet, at most 300 characters)</label>
        <textarea
          id="rp-purpose"
          maxLength={300}
          rows={3}
          value={form().purpose}
          onInput={set('purpose')}
          aria-invalid={err('purpose') ? true : undefined}
          aria-describedby={err('purpose') ? 'rp-purpose-error' : undefined}
        />
        <Show when={err('purpose')}>
          <p id="rp-purpose-error" class="d-field-error">
            {err('purpose')}
          </p>
        </Show>
        <button type="submit" class="d-primary" disabled={action.busy()}>
          Save
        </button>
      </form>
      <ActionStatus
        action={action}
        words={FIELDS.map((f) => err(f)).find(Boolean) ? 'Check the field marked above.' : null}
      />
      <ReaderCertificates />
    </>
  );
}
