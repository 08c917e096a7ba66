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
import { dt } from '../i18n';
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

/** Each field's refusal in words, in the dashboard's language (the server's param names the field). */
const words = (): Record<Fields, string> => ({
  displayName: dt('rp.word.displayName'),
  legalName: dt('rp.word.legalName'),
  contactEmail: dt('rp.word.contactEmail'),
  privacyPolicyUrl: dt('rp.word.privacyPolicyUrl'),
  purpose: dt('rp.word.purpose'),
});

/** What a save does for wallets, in words: the truth per the server's answer (ADR 0052). */
export function walletsWords(w: Wallets): string {
  if (w.source === 'registrar') return dt('rp.wallets.registrar', { name: w.walletName ?? w.pageName });
  if (w.source === 'imported')
    return dt('rp.wallets.imported', {
      name: w.walletName ?? dt('rp.wallets.importedName'),
      page: w.pageName,
    });
  return dt('rp.wallets.none', { page: w.pageName });
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
  // the form shows what was typed, else what is saved: no effect copies the saved values over the fields (one did,
  // and overwrote what a person had typed before the answer came). The form reads the answer, so the screen
  // shows its loading line until it has come (ADR 0069).
  const [edits, setEdits] = createSignal<Partial<Record<Fields, string>>>({});
  createEffect(on(environment, () => setEdits({}), { defer: true }));
  const form = (): Record<Fields, string> => {
    const rp = data()?.relyingParty;
    const shown = empty();
    for (const f of FIELDS) shown[f] = edits()[f] ?? rp?.[f] ?? '';
    return shown;
  };
  const set = (f: Fields) => (e: { currentTarget: { value: string } }) =>
    setEdits({ ...edits(), [f]: e.currentTarget.value });
  const action = createAction();
  const err = (f: string) => fieldErrorOf(action.error(), f, words());
  const save = (e: SubmitEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const input = Object.fromEntries(FIELDS.map((f) => [f, form()[f].trim() || null]));
      await gql(SET_RELYING_PARTY, { input });
      const w = (await gql(WALLETS)).relyingPartyWallets;
      setWallets(w);
      return dt('rp.saved', { words: walletsWords(w) });
    });
  };
  return (
    <>
      <p class="d-muted">
        {dt('rp.introBefore')}
        <strong>{dt(`env.name.${environment()}`)}</strong>
        {dt('rp.introAfter')}
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
          label={dt('rp.displayName')}
          maxlength="80"
          value={form().displayName}
          onInput={set('displayName')}
        />
        <TextField
          id="rp-legal-name"
          error={err('legalName')}
          label={dt('rp.legalName')}
          maxlength="200"
          value={form().legalName}
          onInput={set('legalName')}
        />
        <TextField
          id="rp-contact"
          error={err('contactEmail')}
          label={dt('rp.contact')}
          type="email"
          value={form().contactEmail}
          onInput={set('contactEmail')}
        />
        <TextField
          id="rp-privacy"
          error={err('privacyPolicyUrl')}
          label={dt('rp.privacy')}
          hint={dt('rp.httpsOnly')}
          type="url"
          value={form().privacyPolicyUrl}
          onInput={set('privacyPolicyUrl')}
        />
        <label for="rp-purpose">{dt('rp.purpose')}</label>
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
          {dt('rp.save')}
        </button>
      </form>
      <ActionStatus
        action={action}
        words={FIELDS.map((f) => err(f)).find(Boolean) ? dt('rp.checkField') : null}
      />
      <ReaderCertificates />
    </>
  );
}
