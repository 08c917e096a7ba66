// Sign-in: an emailed one-time link (the token arrives in the fragment, never in a server log) or a passkey
// (discoverable credential, so no email is asked). Accepting an invitation posts its fragment token likewise.
import { startAuthentication } from '@simplewebauthn/browser';
import { createResource, createSignal, onCleanup, onMount, Show } from 'solid-js';
import { authPost, DashError, signInWith } from '../api';
import { DashLanguage } from '../components/DashLanguage';
import { type DashKey, dashLocale, dt } from '../i18n';
import { navigate } from '../router';
import { ErrorNote } from '../Screen';

const fragmentToken = (): string | null => {
  const m = /(?:^|&)token=([\w-]+)/.exec(location.hash.slice(1));
  return m ? (m[1] as string) : null;
};

/**
 * Calls `use` with the fragment's token now and whenever another link is pasted into the same tab: a link that
 * differs only in its fragment does not reload the page (only `hashchange` fires), so reading the token once
 * would keep acting on the first link. The token leaves the address bar once read (it is spent or secret).
 */
function onFragmentToken(use: (token: string) => void): void {
  const read = () => {
    const token = fragmentToken();
    if (!token) return;
    history.replaceState(null, '', location.pathname);
    use(token);
  };
  onMount(() => {
    read();
    window.addEventListener('hashchange', read);
    onCleanup(() => window.removeEventListener('hashchange', read));
  });
}

export function SignIn() {
  const [email, setEmail] = createSignal('');
  const [sent, setSent] = createSignal(false);
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal<unknown>(null);

  const run = async (f: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await f();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  onFragmentToken((token) => {
    void run(async () => {
      await signInWith('/auth/email-link/verify', { token });
      navigate('/dashboard/start', true);
    });
  });

  const passkey = () =>
    run(async () => {
      const o = (await authPost('/auth/passkeys/authenticate/options')) as {
        challenge_id: string;
        options: never;
      };
      let response: unknown;
      try {
        response = await startAuthentication({ optionsJSON: o.options });
      } catch {
        throw new DashError('passkey_cancelled', 0);
      }
      await signInWith('/auth/passkeys/authenticate', { challenge_id: o.challenge_id, response });
      navigate('/dashboard/start', true);
    });

  const link = (e: SubmitEvent) => {
    e.preventDefault();
    void run(async () => {
      // the mail in the language chosen here (Accept-Language; the server falls back to English)
      await authPost('/auth/email-link', { email: email() }, { 'accept-language': dashLocale() });
      setSent(true);
    });
  };

  return (
    <section class="d-card d-narrow" aria-labelledby="screen-title">
      <div class="d-public-top">
        <p class="d-product">{dt('signIn.product')}</p>
        <DashLanguage id="sign-in-language" />
      </div>
      <h1 id="screen-title">{dt('signIn.title')}</h1>
      <Show when={error()}>{(e) => <ErrorNote error={e()} />}</Show>
      <button type="button" class="d-primary" disabled={busy()} onClick={passkey}>
        {dt('signIn.passkey')}
      </button>
      <p class="d-muted">{dt('signIn.or')}</p>
      <Show when={!sent()} fallback={<p role="status">{dt('signIn.sent')}</p>}>
        <form onSubmit={link}>
          <label for="email">{dt('signIn.email')}</label>
          <input
            id="email"
            type="email"
            required
            autocomplete="email"
            value={email()}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
          <button type="submit" disabled={busy()}>
            {dt('signIn.send')}
          </button>
        </form>
      </Show>
      <p class="d-muted d-no-account">{dt('signIn.noAccount')}</p>
    </section>
  );
}

const ROLE_KEYS: Record<string, DashKey> = {
  owner: 'role.owner',
  admin: 'role.admin',
  developer: 'role.developer',
  viewer: 'role.viewer',
};

export function AcceptInvitation() {
  const [token, setToken] = createSignal(fragmentToken());
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal<unknown>(token() ? null : new DashError('invitation_invalid', 410));

  // a second invitation link pasted into this tab replaces the first (and any error about it)
  onFragmentToken((t) => {
    setToken(t);
    setError(null);
  });

  // the page may name the business before accepting (the email does not: spec); a bad token says so at once
  const [invitation] = createResource(token, async (t) => {
    try {
      return (await authPost('/auth/invitations/describe', { token: t })) as {
        business_name: string;
        role: string;
      };
    } catch (e) {
      setError(e);
      return null;
    }
  });

  const accept = async () => {
    setBusy(true);
    setError(null);
    try {
      const u = await signInWith('/auth/invitations/accept', { token: token() });
      // an owner starts the business (Start: first workflow, key, session); others first secure their account
      navigate(u.role === 'owner' ? '/dashboard/start' : '/dashboard/account', true);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="d-card d-narrow" aria-labelledby="screen-title">
      <div class="d-public-top">
        <p class="d-product">{dt('signIn.product')}</p>
        <DashLanguage id="invitation-language" />
      </div>
      <h1 id="screen-title">{dt('invite.title')}</h1>
      <Show when={error()}>{(e) => <ErrorNote error={e()} />}</Show>
      <Show
        when={
          token() && !(error() instanceof DashError && (error() as DashError).code === 'invitation_invalid')
        }
      >
        <Show when={invitation()} fallback={<p>{dt('invite.generic')}</p>}>
          {(i) => (
            <p data-testid="invitation-business">
              {dt('invite.named', {
                business: i().business_name,
                role: ROLE_KEYS[i().role] ? dt(ROLE_KEYS[i().role] as DashKey) : i().role,
              })}
            </p>
          )}
        </Show>
        <button type="button" class="d-primary" disabled={busy()} onClick={accept}>
          {dt('invite.accept')}
        </button>
      </Show>
    </section>
  );
}
