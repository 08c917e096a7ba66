// The first screen after sign-in: which business and environment this is, and what to do next here (an API
// key, a published workflow, a webhook endpoint), each step saying in words whether it is done, with a link to
// the screen that does it and to the API and error references. Follows the environment switch.
import { createResource, For, type JSX, Show } from 'solid-js';
import type { StartQuery, StartQueryVariables } from '../../graphql/generated';
import { environment, gql, operation } from '../api';
import DOCUMENT from '../graphql/start.graphql?raw';
import { dt, dashLocale as locale } from '../i18n';
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

function steps(d: StartQuery, env: 'sandbox' | 'production'): NextStep[] {
  const keys = d.apiKeys.filter((k) => !k.revokedAt).length;
  const published = d.workflows.filter((w) => w.latestRevision > 0).length;
  const count = (n: number) => ({ n: String(n), envIn: dt(`start.envIn.${env}`) });
  return [
    {
      id: 'api-key',
      done: keys > 0,
      title: dt('start.key.title'),
      text: keys
        ? dt(keys === 1 ? 'start.key.one' : 'start.key.many', count(keys))
        : dt('start.key.none', { env: dt(`start.envName.${env}`) }),
      href: '/dashboard/api-keys',
      link: dt(keys ? 'start.key.manage' : 'start.key.create'),
    },
    {
      id: 'workflow',
      done: published > 0,
      title: dt('start.wf.title'),
      text: published
        ? dt(published === 1 ? 'start.wf.one' : 'start.wf.many', count(published))
        : dt('start.wf.none'),
      href: '/dashboard/workflows',
      link: dt(published ? 'start.wf.open' : 'start.wf.build'),
    },
    {
      id: 'webhook',
      done: !!d.webhookEndpoint,
      title: dt('start.hook.title'),
      text: d.webhookEndpoint ? (
        <>
          {dt('start.hook.to')}
          <code class="d-wrap">{d.webhookEndpoint.url}</code>.
        </>
      ) : (
        dt('start.hook.none')
      ),
      href: '/dashboard/webhooks',
      link: dt(d.webhookEndpoint ? 'start.hook.open' : 'start.hook.set'),
    },
  ];
}

export function Start() {
  const [data] = createResource(environment, () => gql(START));
  const envWords = () => dt(environment() === 'production' ? 'start.env.production' : 'start.env.sandbox');
  return (
    <Show when={data()}>
      {(d) => (
        <>
          <section class="d-card d-start-business" aria-labelledby="business-name">
            <h2 id="business-name" data-testid="business-name">
              {d().business.name}
            </h2>
            <p>
              {dt('start.youAreIn')}
              <strong data-testid="start-environment">{envWords()}</strong>
              {dt('start.signedInAs')}
              <span class="d-wrap">{d().me.email}</span> ({d().me.role}).
            </p>
          </section>
          <h2 id="next-steps">{dt('start.next')}</h2>
          <ol class="d-next-steps" aria-labelledby="next-steps">
            <For each={steps(d(), environment())}>
              {(s) => (
                <li class="d-card" classList={{ 'd-step-done': s.done }} data-testid={`next-${s.id}`}>
                  <h3>
                    {s.title}
                    {locale() === 'fr' ? '\u00a0: ' : ': '}
                    <span class="d-step-state">{dt(s.done ? 'start.done' : 'start.todo')}</span>
                  </h3>
                  <p>{s.text}</p>
                  <a href={s.href} onClick={linkClick}>
                    {s.link}
                  </a>
                </li>
              )}
            </For>
            <li class="d-card" data-testid="next-docs">
              <h3>{dt('start.refs.title')}</h3>
              <p>{dt('start.refs.text')}</p>
              <p class="d-links">
                <a href="/openapi.v1.json">{dt('start.refs.api')}</a>
                <a href="/errors">{dt('start.refs.errors')}</a>
              </p>
            </li>
          </ol>
        </>
      )}
    </Show>
  );
}
