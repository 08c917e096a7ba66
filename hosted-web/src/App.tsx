// Routing of the hosted page: /s/{session_id} drives one session, /s/{session_id}/return is the wallet's
// same-device redirect back (WalletReturn.tsx); every other path is a 404 view.
import { Match, Switch } from 'solid-js';
import { NotFound } from './routes/NotFound';
import { SessionRoute } from './routes/SessionRoute';
import { returnSessionIdFromPath, WalletReturn } from './routes/WalletReturn';

export function sessionIdFromPath(pathname: string): string | undefined {
  const match = /^\/s\/([^/]+)\/?$/.exec(pathname);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined; // malformed percent-encoding: not a link we ever issue
  }
}

export function App() {
  const id = sessionIdFromPath(location.pathname);
  const returning = returnSessionIdFromPath(location.pathname);
  return (
    <Switch fallback={<NotFound />}>
      <Match when={returning}>{(sessionId) => <WalletReturn id={sessionId()} />}</Match>
      <Match when={id}>{(sessionId) => <SessionRoute id={sessionId()} />}</Match>
    </Switch>
  );
}
