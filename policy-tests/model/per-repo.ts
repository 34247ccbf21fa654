/**
 * Derived views of a repository (which app applies which file, the parsed
 * tuning files, validated settings) are read by several checks in one gate
 * run. A Repo is immutable once built, so each view is computed once per Repo.
 */
import type { Repo } from './repo.ts';

/** `derive`, computed once per object (a Repo, or a narrower view of one that does not change once built). */
export function perObject<K extends object, T>(derive: (key: K) => T): (key: K) => T {
  const memo = new WeakMap<K, T>();
  return (key) => {
    if (!memo.has(key)) memo.set(key, derive(key));
    return memo.get(key)!;
  };
}

export function perRepo<T>(derive: (repo: Repo) => T): (repo: Repo) => T {
  return perObject<Repo, T>(derive);
}
