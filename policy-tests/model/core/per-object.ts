/**
 * `derive`, computed once per object: a Repo, a narrower view of one, or a parsed object, none of which
 * changes once built. An unchanged file's parsed objects are shared by every view of the repository
 * (model/repository/parse-pool.ts), so what is derived from them alone is derived once for all views.
 */
export function perObject<K extends object, T>(derive: (key: K) => T): (key: K) => T {
  const memo = new WeakMap<K, T>();
  return (key) => {
    if (!memo.has(key)) memo.set(key, derive(key));
    return memo.get(key)!;
  };
}

/**
 * A memo by a pair: an object (a parsed object, a selector, a schema shape) and a second key, an object or a
 * string. What `derive` gives is kept until the object goes: what every view derives again from an object it
 * shares together with something else it shares. The caller passes `derive` at each call, so it may close over
 * what computes it (a schema layer's shapes). Results are never mutated.
 */
export function perPair<A extends object, T>(): (a: A, b: unknown, derive: () => T) => T {
  const memo = new WeakMap<A, Map<unknown, T>>();
  return (a, b, derive) => {
    let byB = memo.get(a);
    if (!byB) memo.set(a, (byB = new Map()));
    if (byB.has(b)) return byB.get(b)!;
    const value = derive();
    byB.set(b, value);
    return value;
  };
}

/**
 * A memo by several objects at once, each compared by identity: `derive` runs once for each combination, and what it
 * gave is kept while every object of it lives. For what every view of one gate run derives again from objects
 * all the views share (the run's file tree, its parsed files), together with one object a run may reuse from the
 * run before (a parsed Application). The caller passes `derive` at each call, as with `perPair`.
 */
export function perObjects<T>(): (keys: readonly object[], derive: () => T) => T {
  interface Level {
    next: WeakMap<object, Level>;
    value?: { v: T };
  }
  const root: Level = { next: new WeakMap() };
  return (keys, derive) => {
    let level = root;
    for (const key of keys) {
      let next = level.next.get(key);
      if (!next) level.next.set(key, (next = { next: new WeakMap() }));
      level = next;
    }
    if (!level.value) level.value = { v: derive() };
    return level.value.v;
  };
}

/**
 * `derive`, remembered by key (a text, a path; `keyOf` of the arguments, the first by default) for this process,
 * the oldest forgotten past `limit` keys: what every view of the repository derives again from the same input.
 * Results are never mutated.
 */
export function perKey<A extends unknown[], T>(
  limit: number,
  derive: (...args: A) => T,
  keyOf: (...args: A) => unknown = (...args) => args[0],
): (...args: A) => T {
  const memo = new Map<unknown, T>();
  return (...args) => {
    const key = keyOf(...args);
    if (memo.has(key)) return memo.get(key)!;
    const value = derive(...args);
    memo.set(key, value);
    if (memo.size > limit) memo.delete(memo.keys().next().value!);
    return value;
  };
}
