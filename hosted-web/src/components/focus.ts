// Moves focus to a panel's heading when the panel changes after the first render, so keyboard and screen-reader
// users land on the new state instead of on a button that disappeared.
let firstPanelShown = false;

export function focusPanel(el: HTMLElement) {
  if (firstPanelShown) queueMicrotask(() => el.focus());
  firstPanelShown = true;
}

/** Focuses a control that appears in answer to the person's own click (the clicked button is gone). */
export function focusOnAppear(el: HTMLElement) {
  queueMicrotask(() => el.focus());
}
