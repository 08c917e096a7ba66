// The first screen after sign-in: which business and environment this is, and what to do next here (an API
// key, a published workflow, a webhook endpoint), each step saying in words whether it is done, with a link to
// the screen that does it and to the API and error references. Follows the environment switch.
import { createResource, For, type JSX, Show } from 'solid-js';
import type { StartQuery, StartQueryVariables } from '../../graphql/generated';
import { environment, gql, operation } from '../api';
import DOCUMENT from '../graphql/start.graphql?raw';
import { linkClick } from '../router';

const START = operation<StartQuery, StartQueryVariables>(DOCUMENT, 'Start');

interface NextStep {
  id: string;
  done: boolean;
  title: string;
  /** what is there already (done) or why it matters (to do) */
  text: JSX.Element;
  href: string;
  link: string;
}

function steps(d: StartQuery, env: string): NextStep[] {
  const keys = d.apiKeys.filter((k) => !k.revokedAt).length;
  const published = d.workflows.filter((w) => w.latestRevision > 0).length;
  return [
    {
      id: 'api-key',
      done: keys > 0,
      title: 'An API key',
      text: keys
        ? `${keys} active ${keys === 1 ? 'key' : 'keys'} in ${env}.`
        : `Your server needs a ${env} key to create sessions over /v1.`,
      href: '/dashboard/api-keys',
      link: keys ? 'Manage API keys' : 'Create an API key',
    },
    {
      id: 'workflow',
      done: published > 0,
      title: 'A published workflow',
      text: published
        ? `${published} published ${published === 1 ? 'workflow' : 'workflows'} in ${env}.`
        : 'A session follows a published workflow: its steps (identify, age check, sign, attestation).',
      href: '/dashboard/workflows',
      link: published ? 'Open the workflows' : 'Build a workflow in the editor',
    },
    {
      id: 'webhook',
      done: !!d.webhookEndpoint,
      title: 'A webhook endpoint',
      text: d.webhookEndpoint ? (
        <>
          Deliveries go to <code class="d-wrap">{d.webhookEndpoint.url}</code>.
        </>
      ) : (
        'Your server learns of completed steps and ended sessions from signed webhook deliveries.'
      ),
      href: '/dashboard/webhooks',
      link: d.webhookEndpoint ? 'Open the webhook endpoint' : 'Set a webhook endpoint',
    },
  ];
}

export function Start() {
  const [data] = createResource(environment, () => gql(START));
  const envWords = () => (environment() === 'production' ? 'production (live data)' : 'sandbox (test data)');
  return (
    <Show when={data()}>
      {(d) => (
        <>
          <section class="d-card d-start-business" aria-labelledby="business-name">
            <h2 id="business-name" data-testid="business-name">
              {d().business.name}
            </h2>
            <p>
              You are in <strong data-testid="start-environment">{envWords()}</strong>, signed in as{' '}
              <span class="d-wrap">{d().me.email}</span> ({d().me.role}).
            </p>
          </section>
          <h2 id="next-steps">What to do next</h2>
          <ol class="d-next-steps" aria-labelledby="next-steps">
            <For each={steps(d(), environment())}>
              {(s) => (
                <li class="d-card" classList={{ 'd-step-done': s.done }} data-testid={`next-${s.id}`}>
                  <h3>
                    {s.title}: <span class="d-step-state">{s.done ? 'done' : 'to do'}</span>
                  </h3>
                  <p>{s.text}</p>
                  <a href={s.href} onClick={linkClick}>
                    {s.link}
                  </a>
                </li>
              )}
            </For>
            <li class="d-card" data-testid="next-docs">
              <h3>The references</h3>
              <p>
                Every /v1 route with its inputs and answers, and every error code with what to do about it.
              </p>
              <p class="d-links">
                <a href="/openapi.v1.json">API reference (OpenAPI)</a>
                <a href="/errors">Error reference</a>
              </p>
            </li>
          </ol>
        </>
      )}
    </Show>
  );
}
