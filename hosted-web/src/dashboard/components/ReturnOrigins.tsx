// The branding screen's return origins (screens/Branding.tsx): the origins a session's return_url may point
// to, each removable, and one added at a time. The server checks each origin (https only in production).
import { createSignal, For, Show } from 'solid-js';
import type { SetReturnOriginsMutation, SetReturnOriginsMutationVariables } from '../../graphql/generated';
import { environment, gql, operation } from '../api';
import DOCUMENT from '../graphql/branding.graphql?raw';
import { dt } from '../i18n';

const SET_RETURN_ORIGINS = operation<SetReturnOriginsMutation, SetReturnOriginsMutationVariables>(
  DOCUMENT,
  'SetReturnOrigins',
);

export function ReturnOrigins(props: {
  origins: string[];
  busy: boolean;
  /** runs a change, shows the notice it answers or its error, then reloads the screen; true when it worked */
  act: (f: () => Promise<string>) => Promise<boolean>;
}) {
  const [origin, setOrigin] = createSignal('');
  const save = (origins: string[], done: string) =>
    props.act(async () => {
      await gql(SET_RETURN_ORIGINS, { origins });
      return done;
    });
  const add = (e: SubmitEvent) => {
    e.preventDefault();
    const o = origin().trim();
    if (!o) return;
    void save([...props.origins, o], dt('br.added', { origin: o })).then((ok) => {
      if (ok) setOrigin('');
    });
  };
  return (
    <>
      <h2 id="origins-h">{dt('br.origins')}</h2>
      <p class="d-muted">
        {dt('br.originsText')}
        {dt(environment() === 'production' ? 'br.originsProduction' : 'br.originsSandbox')}
      </p>
      <Show when={props.origins.length} fallback={<p class="d-muted">{dt('br.noOrigins')}</p>}>
        <ul class="b-origins" aria-labelledby="origins-h" data-testid="return-origins">
          <For each={props.origins}>
            {(o) => (
              <li>
                <code>{o}</code>
                <button
                  type="button"
                  disabled={props.busy}
                  aria-label={dt('br.removeOrigin', { origin: o })}
                  onClick={() =>
                    save(
                      props.origins.filter((x) => x !== o),
                      dt('br.removed', { origin: o }),
                    )
                  }
                >
                  {dt('br.remove')}
                </button>
              </li>
            )}
          </For>
        </ul>
      </Show>
      <form class="d-form b-form" onSubmit={add}>
        <label for="branding-origin">{dt('br.addOriginLabel')}</label>
        <input
          id="branding-origin"
          placeholder="https://shop.example"
          value={origin()}
          onInput={(e) => setOrigin(e.currentTarget.value)}
        />
        <button type="submit" disabled={props.busy}>
          {dt('br.addOrigin')}
        </button>
      </form>
    </>
  );
}
