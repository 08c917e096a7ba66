// The signed-in user's account: who they are, adding a passkey for this device, signing out.
import { startRegistration } from '@simplewebauthn/browser';
import { createSignal, Show } from 'solid-js';
import { authPost, DashError, signOut, user } from '../api';
import { dt } from '../i18n';
import { navigate } from '../router';
import { ErrorNote } from '../Screen';

export function Account() {
  const [error, setError] = createSignal<unknown>(null);
  const [added, setAdded] = createSignal(false);
  const [busy, setBusy] = createSignal(false);

  const addPasskey = async () => {
    setBusy(true);
    setError(null);
    try {
      const o = (await authPost('/auth/passkeys/register/options')) as {
        challenge_id: string;
        options: never;
      };
      let response: unknown;
      try {
        response = await startRegistration({ optionsJSON: o.options });
      } catch {
        throw new DashError('passkey_cancelled', 0);
      }
      await authPost('/auth/passkeys/register', { challenge_id: o.challenge_id, response });
      setAdded(true);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const out = async () => {
    try {
      await signOut();
      navigate('/dashboard/sign-in', true);
    } catch (e) {
      setError(e);
    }
  };

  return (
    <>
      <Show when={error()}>{(e) => <ErrorNote error={e()} />}</Show>
      <dl class="d-facts">
        <dt>{dt('account.email')}</dt>
        <dd>{user()?.email}</dd>
        <dt>{dt('account.role')}</dt>
        <dd>{user()?.role}</dd>
      </dl>
      <h2>{dt('account.passkeys')}</h2>
      <p>{dt('account.passkeyText')}</p>
      <Show when={added()}>
        <p role="status" class="d-ok">
          {dt('account.passkeyAdded')}
        </p>
      </Show>
      <button type="button" class="d-primary" disabled={busy()} onClick={addPasskey}>
        {dt('account.addPasskey')}
      </button>
      <h2>{dt('account.session')}</h2>
      <button type="button" onClick={out}>
        {dt('account.signOut')}
      </button>
    </>
  );
}
