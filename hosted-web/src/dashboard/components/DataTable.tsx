// A table of rows under column headers, inside the box that scrolls sideways on a phone (.d-table-wrap), so
// a wide table never widens the page. Named by a visible heading (labelledby) or an aria-label.
import { For, type JSX, Show } from 'solid-js';

export interface Column<T> {
  header: string;
  /** header read by screen readers only (e.g. "Actions" above a column of buttons) */
  srOnly?: boolean;
  class?: string;
  cell: (row: T) => JSX.Element;
}

export function DataTable<T>(props: {
  columns: Column<T>[];
  rows: readonly T[] | undefined;
  /** id of the heading that names the table */
  labelledby?: string;
  label?: string;
}) {
  return (
    <div class="d-table-wrap">
      <table aria-labelledby={props.labelledby} aria-label={props.label}>
        <thead>
          <tr>
            <For each={props.columns}>
              {(c) => (
                <th scope="col">
                  <Show when={c.srOnly} fallback={c.header}>
                    <span class="d-sr">{c.header}</span>
                  </Show>
                </th>
              )}
            </For>
          </tr>
        </thead>
        <tbody>
          <For each={props.rows}>
            {(row) => (
              <tr>
                <For each={props.columns}>{(c) => <td class={c.class}>{c.cell(row)}</td>}</For>
              </tr>
            )}
          </For>
        </tbody>
      </table>
    </div>
  );
}
