// A table of rows under column headers. Wide screens: a plain table inside a box that scrolls sideways if it
// must (.d-table-wrap), so a wide table never widens the page. Phones (dashboard.css, max-width 40rem): each
// row is a stacked card and each cell shows its column name (data-label, drawn by CSS), so every column and
// button is in view without sideways scrolling. The explicit ARIA roles keep the table semantics for
// assistive tech when CSS changes the display of the table parts (some browsers drop them otherwise).
// Named by a visible heading (labelledby) or an aria-label. A row can open a detail row below it (full width).
// biome-ignore-all lint/a11y/noRedundantRoles: the roles are on purpose, see above (phone card layout)
import { For, type JSX, Show } from 'solid-js';

export interface Column<T> {
  header: string;
  /** header read by screen readers only (e.g. "Actions" above a column of buttons); no label on phones */
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
  /** when it answers true for a row, `detail` is shown in a full-width row right below it */
  expanded?: (row: T) => boolean;
  detail?: (row: T) => JSX.Element;
}) {
  return (
    <div class="d-table-wrap">
      <table role="table" aria-labelledby={props.labelledby} aria-label={props.label}>
        <thead role="rowgroup">
          <tr role="row">
            <For each={props.columns}>
              {(c) => (
                <th scope="col" role="columnheader">
                  <Show when={c.srOnly} fallback={c.header}>
                    <span class="d-sr">{c.header}</span>
                  </Show>
                </th>
              )}
            </For>
          </tr>
        </thead>
        <tbody role="rowgroup">
          <For each={props.rows}>
            {(row) => (
              <>
                <tr role="row">
                  <For each={props.columns}>
                    {(c) => (
                      <td role="cell" class={c.class} data-label={c.srOnly ? undefined : c.header}>
                        {c.cell(row)}
                      </td>
                    )}
                  </For>
                </tr>
                <Show when={props.expanded?.(row)}>
                  <tr role="row" class="d-detail-row">
                    <td role="cell" colspan={props.columns.length}>
                      {props.detail?.(row)}
                    </td>
                  </tr>
                </Show>
              </>
            )}
          </For>
        </tbody>
      </table>
    </div>
  );
}
