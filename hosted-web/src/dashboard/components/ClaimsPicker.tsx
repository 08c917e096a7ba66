// The claims of an identify step: the claim names the catalog's routes offer in this environment as
// checkboxes (in words, with the name the API uses), kept in step with the comma-separated list below them,
// which stays editable for a name the catalog does not list. The server decides: an unknown name is refused
// and its message shown on the list (`error`, from workflow_invalid's param steps[i].claims).
import { createResource, For, Show } from 'solid-js';
import type { IdentifyClaimsQuery, IdentifyClaimsQueryVariables } from '../../graphql/generated';
import { environment, gql, operation } from '../api';
import DOCUMENT from '../graphql/catalog.graphql?raw';
import { type DashKey, dt } from '../i18n';
import { claimList } from './draft-step';
import { TextField } from './Field';

const IDENTIFY_CLAIMS = operation<IdentifyClaimsQuery, IdentifyClaimsQueryVariables>(
  DOCUMENT,
  'IdentifyClaims',
);

/** The claims named in words (messages/workflows.ts); any other name is shown as it is. */
const WORDS: Record<string, DashKey> = {
  given_name: 'claims.given_name',
  family_name: 'claims.family_name',
  birth_date: 'claims.birth_date',
  nationality: 'claims.nationality',
  document_status: 'claims.document_status',
};
const words = (name: string): string => {
  const key = WORDS[name];
  return key ? dt(key) : name;
};

/** The names offered by the routes available in the environment, in the catalog's order, each once. */
async function offeredClaims(env: string): Promise<string[]> {
  const { catalog } = await gql(IDENTIFY_CLAIMS);
  const available = catalog.filter((r) => (env === 'production' ? r.production : r.sandbox).available);
  return [...new Set(available.flatMap((r) => r.identifyClaims))];
}

export function ClaimsPicker(props: {
  id: string;
  value: string;
  error: string | null;
  onChange: (value: string) => void;
}) {
  const [offered] = createResource(environment, offeredClaims);
  const chosen = () => claimList(props.value);
  const toggle = (name: string, on: boolean) => {
    const rest = chosen().filter((c) => c !== name);
    props.onChange((on ? [...rest, name] : rest).join(', '));
  };
  return (
    <>
      <Show when={offered()?.length}>
        <fieldset class="d-claims" aria-describedby={`${props.id}-offered-hint`}>
          <legend>{dt('claims.offered')}</legend>
          <p id={`${props.id}-offered-hint`} class="d-muted">
            {dt('claims.offeredHint')}
          </p>
          <For each={offered()}>
            {(name) => (
              <label>
                <input
                  type="checkbox"
                  checked={chosen().includes(name)}
                  onChange={(e) => toggle(name, e.currentTarget.checked)}
                />
                <span>
                  {words(name)} <code>{name}</code>
                </span>
              </label>
            )}
          </For>
        </fieldset>
      </Show>
      <TextField
        id={props.id}
        error={props.error}
        label={dt('claims.list')}
        value={props.value}
        onInput={(e) => props.onChange(e.currentTarget.value)}
      />
    </>
  );
}
