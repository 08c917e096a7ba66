// A resource's storage (Solid's createResource `storage` option) that keeps what did not change: each answer is
// merged into the one before it (reconcile, list items matched by `id`), so a row of a refreshed list that is
// still there keeps its identity, and with it what the person opened below it; only the fields that changed
// update in place.
import type { Signal } from 'solid-js';
import { createStore, reconcile, unwrap } from 'solid-js/store';

export function reconciled<T>(initial: T | undefined): Signal<T | undefined> {
  const [store, setStore] = createStore<{ value: T | undefined }>({ value: initial });
  const set = (v: unknown) => {
    const next = typeof v === 'function' ? (v as (prev: T | undefined) => T)(unwrap(store.value)) : v;
    setStore('value', reconcile(next as T));
    return store.value;
  };
  return [() => store.value, set] as Signal<T | undefined>;
}
