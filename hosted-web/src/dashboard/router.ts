// A small path router: the dashboard has a handful of flat routes under /dashboard, so a signal of the
// pathname and history.pushState cover it without another dependency (ADR 0017).
import { createSignal } from 'solid-js';

const [path, setPath] = createSignal(location.pathname);
window.addEventListener('popstate', () => setPath(location.pathname));

export { path };

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  setPath(new URL(to, location.origin).pathname);
  window.scrollTo(0, 0);
}

/** Click handler for in-app links: plain clicks navigate without a reload, modified clicks keep browser behaviour. */
export function linkClick(e: MouseEvent): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = e.currentTarget as HTMLAnchorElement;
  e.preventDefault();
  navigate(a.pathname);
}
