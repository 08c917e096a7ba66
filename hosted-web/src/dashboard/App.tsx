// The dashboard shell: public routes (sign-in, accept invitation) and signed-in routes inside a shell with
// navigation, the environment switch and a persistent environment badge. Sandbox and production differ in
// colour (the whole top bar and a badge with the word, never colour alone).
import { createResource, type JSX, Match, onMount, Show, Switch } from 'solid-js';
import { type Environment, environment, restoreSession, setEnvironment, user } from './api';
import { DashLanguage } from './components/DashLanguage';
import { Nav } from './components/Nav';
import { dt } from './i18n';
import { linkClick, navigate, path } from './router';
import { ErrorNote, Screen } from './Screen';
import { Account } from './screens/Account';
import { ApiKeys } from './screens/ApiKeys';
import { Branding } from './screens/Branding';
import { Catalog } from './screens/Catalog';
import { RelyingParty } from './screens/RelyingParty';
import { SessionDetail, Sessions } from './screens/Sessions';
import { AcceptInvitation, SignIn } from './screens/SignIn';
import { Start } from './screens/Start';
import { Team } from './screens/Team';
import { Webhooks } from './screens/Webhooks';
import { WorkflowDetail, Workflows } from './screens/Workflows';

interface RouteDef {
  path: string;
  title: string;
  view: () => JSX.Element;
}

const ROUTES: RouteDef[] = [
  {
    path: '/dashboard/start',
    get title() {
      return dt('nav.start');
    },
    view: Start,
  },
  {
    path: '/dashboard/team',
    get title() {
      return dt('nav.team');
    },
    view: Team,
  },
  {
    path: '/dashboard/api-keys',
    get title() {
      return dt('nav.apiKeys');
    },
    view: ApiKeys,
  },
  {
    path: '/dashboard/workflows',
    get title() {
      return dt('nav.workflows');
    },
    view: Workflows,
  },
  {
    path: '/dashboard/sessions',
    get title() {
      return dt('nav.sessions');
    },
    view: Sessions,
  },
  {
    path: '/dashboard/webhooks',
    get title() {
      return dt('nav.webhooks');
    },
    view: Webhooks,
  },
  {
    path: '/dashboard/catalog',
    get title() {
      return dt('nav.catalog');
    },
    view: Catalog,
  },
  {
    path: '/dashboard/branding',
    get title() {
      return dt('nav.branding');
    },
    view: Branding,
  },
  {
    path: '/dashboard/relying-party',
    get title() {
      return dt('nav.relyingParty');
    },
    view: RelyingParty,
  },
  {
    path: '/dashboard/account',
    get title() {
      return dt('nav.account');
    },
    view: Account,
  },
];

function Shell(props: { route: RouteDef }) {
  const env = () => environment();
  // ids belong to one environment: switching on a detail page goes to that environment's list instead of a
  // "not found" that no retry could fix (list first, so the detail never asks the other environment)
  const onEnv = (e: Event) => {
    const next = (e.currentTarget as HTMLSelectElement).value as Environment;
    if (path().replace(/\/$/, '') !== props.route.path) navigate(props.route.path);
    setEnvironment(next);
  };
  return (
    <div class={`d-shell d-env-${env()}`}>
      <a class="d-skip" href="#main">
        {dt('shell.skip')}
      </a>
      <header class="d-top">
        <span class="d-brand">{dt('shell.brand')}</span>
        <span class="d-badge" data-testid="environment-badge">
          {env() === 'production' ? dt('shell.badge.production') : dt('shell.badge.sandbox')}
        </span>
        <label class="d-env">
          <span>{dt('shell.environment')}</span>
          <select value={env()} onChange={onEnv}>
            <option value="sandbox">{dt('shell.sandbox')}</option>
            <option value="production">{dt('shell.production')}</option>
          </select>
        </label>
        <DashLanguage id="dashboard-language" />
      </header>
      <Nav items={ROUTES} />
      <main id="main" class="d-main">
        {/* keyed: each route gets a fresh Screen, so an error caught on one screen never sticks to the next */}
        <Show when={props.route} keyed>
          {(r) => <Screen title={r.title}>{r.view()}</Screen>}
        </Show>
      </main>
    </div>
  );
}

function SignedIn(props: { route: RouteDef }) {
  // every signed-in route first restores the session (CSRF token) after a reload; signed out -> sign-in
  const [session] = createResource(async () => {
    const u = await restoreSession();
    if (!u) navigate('/dashboard/sign-in', true);
    return u;
  });
  return (
    <Show
      when={!session.error}
      fallback={
        <main class="d-main">
          <ErrorNote error={session.error} />
        </main>
      }
    >
      <Show
        when={user()}
        fallback={
          <p class="d-loading" role="status">
            Loading…
          </p>
        }
      >
        <Shell route={props.route} />
      </Show>
    </Show>
  );
}

export function App() {
  const route = () => {
    const p = path().replace(/\/$/, '');
    const detail = /^\/dashboard\/sessions\/([\w-]+)$/.exec(p);
    if (detail) {
      const id = detail[1] as string;
      return {
        path: '/dashboard/sessions',
        get title() {
          return dt('nav.session');
        },
        view: () => <SessionDetail id={id} />,
      };
    }
    const workflow = /^\/dashboard\/workflows\/([\w-]+)$/.exec(p);
    if (workflow) {
      const id = workflow[1] as string;
      return {
        path: '/dashboard/workflows',
        get title() {
          return dt('nav.workflow');
        },
        view: () => <WorkflowDetail id={id} />,
      };
    }
    return ROUTES.find((r) => r.path === p);
  };
  return (
    <Switch fallback={<NotFound />}>
      <Match when={path().replace(/\/$/, '') === '/dashboard'}>
        <Redirect to="/dashboard/start" />
      </Match>
      <Match when={path() === '/dashboard/sign-in'}>
        <main class="d-main d-public">
          <SignIn />
        </main>
      </Match>
      <Match when={path() === '/dashboard/accept-invitation'}>
        <main class="d-main d-public">
          <AcceptInvitation />
        </main>
      </Match>
      <Match when={route()}>{(r) => <SignedIn route={r()} />}</Match>
    </Switch>
  );
}

function NotFound() {
  return (
    <main class="d-main d-public">
      <section class="d-card d-narrow">
        <h1>{dt('notFound.title')}</h1>
        <p>
          <a href="/dashboard/start" onClick={linkClick}>
            {dt('notFound.back')}
          </a>
        </p>
      </section>
    </main>
  );
}

function Redirect(props: { to: string }) {
  onMount(() => navigate(props.to, true));
  return null;
}
