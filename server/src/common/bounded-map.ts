// Owns the bounded caches' one eviction rule: a Map of at most `max` entries, the oldest inserted going first.

/** A Map bounded to `max` entries (the oldest inserted goes first); `max` 0 keeps nothing. */
export class Bounded<V> extends Map<string, V> {
  constructor(private readonly max: number) {
    super();
  }

  /** Sets `key` to `value` (dropping the oldest entry when full) and returns `value`. */
  keep(key: string, value: V): V {
    if (this.max <= 0) return value;
    if (this.size >= this.max) this.delete(this.keys().next().value as string);
    this.set(key, value);
    return value;
  }
}
