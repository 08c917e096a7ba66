// The routes of a workflow step (ADR 0036): which wallet × issuer routes' trust may validate the step's
// credential. Offered: the catalog's routes available in the selected environment that serve the step's
// primitive; none ticked is the default (every such route). The server decides at publish: a route it does not
// know is refused, and its message shown here (`error`, from workflow_invalid's param steps[i].routes).
import { createResource, For, Show } from 'solid-js';
import type { Primitive, StepRoutesQuery, StepRoutesQueryVariables } from '../../graphql/generated';
import { environment, gql, operation } from '../api';
import DOCUMENT from '../graphql/catalog.graphql?raw';
import { dt } from '../i18n';

const STEP_ROUTES = operation<StepRoutesQuery, StepRoutesQueryVariables>(DOCUMENT, 'StepRoutes');

type Route = StepRoutesQuery['catalog'][number];
const FLAG = {
  identify: 'identify',
  age_verify: 'ageVerify',
  sign: 'sign',
  attestation: 'attestation',
} as const satisfies Record<Primitive, string>;

/** The routes of the environment that serve the primitive, in the catalog's order. */
const serving = (routes: Route[] | undefined, env: string, primitive: Primitive): Route[] =>
  (routes ?? []).filter((r) => {
    const e = env === 'production' ? r.production : r.sandbox;
    return e.available && e.primitives[FLAG[primitive]];
  });

export function StepRoutes(props: {
  id: string;
  primitive: Primitive;
  value: string[];
  error: string | null;
  onChange: (routes: string[]) => void;
}) {
  const [catalog] = createResource(environment, async () => (await gql(STEP_ROUTES)).catalog);
  const offered = () => serving(catalog(), environment(), props.primitive);
  // a route the draft names but the environment no longer offers stays visible, so it can be unticked
  const others = () => props.value.filter((id) => !offered().some((r) => r.id === id));
  const toggle = (id: string, on: boolean) => {
    const rest = props.value.filter((r) => r !== id);
    props.onChange(on ? [...rest, id] : rest);
  };
  const envIn = () => dt(`env.in.${environment()}`);
  const describedBy = () =>
    [`${props.id}-hint`, props.error ? `${props.id}-error` : ''].filter(Boolean).join(' ');
  return (
    <fieldset class="d-claims d-routes" aria-describedby={describedBy()} data-testid={props.id}>
      <legend>{dt('routes.legend')}</legend>
      <p id={`${props.id}-hint`} class="d-muted">
        {dt('routes.hint', { in: envIn() })}
      </p>
      <Show when={catalog() && !offered().length && !others().length}>
        <p class="d-muted">{dt('routes.none', { in: envIn() })}</p>
      </Show>
      <For each={offered()}>
        {(r) => (
          <label>
            <input
              type="checkbox"
              checked={props.value.includes(r.id)}
              onChange={(e) => toggle(r.id, e.currentTarget.checked)}
            />
            <span>
              {dt('routes.with', { wallet: r.wallet.name, issuer: r.issuer.name })} <code>{r.id}</code>
            </span>
          </label>
        )}
      </For>
      <For each={others()}>
        {(id) => (
          <label>
            <input type="checkbox" checked onChange={(e) => toggle(id, e.currentTarget.checked)} />
            <span>
              <code>{id}</code> {dt('routes.notOffered', { in: envIn() })}
            </span>
          </label>
        )}
      </For>
      <Show when={props.error}>
        <p id={`${props.id}-error`} class="d-field-error">
          {props.error}
        </p>
      </Show>
    </fieldset>
  );
}
