// The dashboard's navigation: one list of links, shown as a row on wide screens and behind a "Menu" button on
// phones (a disclosure: aria-expanded/aria-controls on the button; opening moves focus to the current page's
// link, Escape closes and gives focus back to the button, leaving the menu or following a link closes it).
// The list of routes stays in App.tsx; this file only decides how it is shown.
import { createEffect, createSignal, For, on } from 'solid-js';
import { dt } from '../i18n';
import { linkClick, path } from '../router';

export interface NavItem {
  path: string;
  title: string;
}

export function Nav(props: { items: NavItem[] }) {
  const [open, setOpen] = createSignal(false);
  let button: HTMLButtonElement | undefined;
  let list: HTMLUListElement | undefined;
  const current = (p: string) => path() === p || path().startsWith(`${p}/`);
  // following a link (or the browser's back button) closes the menu
  createEffect(on(path, () => setOpen(false), { defer: true }));

  const toggle = () => {
    const next = !open();
    setOpen(next);
    if (next) {
      const links = Array.from(list?.querySelectorAll('a') ?? []);
      (links.find((a) => a.getAttribute('aria-current') === 'page') ?? links[0])?.focus();
    }
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || !open()) return;
    e.preventDefault();
    setOpen(false);
    button?.focus();
  };
  // focus leaving the navigation (Tab past the last link, a click elsewhere) closes the menu
  const onFocusOut = (e: FocusEvent & { currentTarget: HTMLElement }) => {
    const next = e.relatedTarget as Node | null;
    if (open() && next && !e.currentTarget.contains(next)) setOpen(false);
  };

  return (
    <nav
      class="d-nav"
      classList={{ 'd-nav-open': open() }}
      aria-label={dt('nav.label')}
      onKeyDown={onKeyDown}
      onFocusOut={onFocusOut}
    >
      <button
        ref={button}
        type="button"
        class="d-menu-button"
        aria-expanded={open() ? 'true' : 'false'}
        aria-controls="dashboard-nav-list"
        onClick={toggle}
      >
        <span aria-hidden="true" class="d-menu-icon" />
        {dt('shell.menu')}
      </button>
      <ul id="dashboard-nav-list" ref={list}>
        <For each={props.items}>
          {(r) => (
            <li>
              <a href={r.path} onClick={linkClick} aria-current={current(r.path) ? 'page' : undefined}>
                {r.title}
              </a>
            </li>
          )}
        </For>
      </ul>
    </nav>
  );
}
