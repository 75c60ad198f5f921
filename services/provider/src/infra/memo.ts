/**
 * Small in-process caches for the hot path: a bounded map (the oldest entry leaves first) with an
 * optional time to live. For values that never change (a session) or may be a moment stale by
 * design (an operator profile, a few seconds): never for money state.
 */
export interface Memo<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  delete(key: K): void;
  clear(): void;
}

export function memo<K, V>(opts: { max: number; ttlMs?: number; now?: () => number }): Memo<K, V> {
  const now = opts.now ?? Date.now;
  const entries = new Map<K, { value: V; until: number }>();
  return {
    get(key) {
      const e = entries.get(key);
      if (!e) return undefined;
      if (e.until < now()) {
        entries.delete(key);
        return undefined;
      }
      return e.value;
    },
    set(key, value) {
      entries.delete(key);
      entries.set(key, { value, until: opts.ttlMs === undefined ? Infinity : now() + opts.ttlMs });
      if (entries.size > opts.max) entries.delete(entries.keys().next().value as K);
    },
    delete(key) {
      entries.delete(key);
    },
    clear() {
      entries.clear();
    },
  };
}
