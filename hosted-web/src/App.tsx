// Routing of the hosted page: /s/{session_id} drives one session; every other path is a 404 view.
import { Match, Switch } from 'solid-js';
import { NotFound } from './routes/NotFound';
import { SessionRoute } from './routes/SessionRoute';

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
  return (
    <Switch fallback={<NotFound />}>
      <Match when={id}>{(sessionId) => <SessionRoute id={sessionId()} />}</Match>
    </Switch>
  );
}
