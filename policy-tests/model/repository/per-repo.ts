/**
 * Derived views of a repository (which app applies which file, the parsed
 * tuning files, validated settings) are read by several checks in one gate
 * run. A Repo is immutable once built, so each view is computed once per Repo.
 */
import type { Repo } from './repo.ts';
import { perObject } from '../core/per-object.ts';

export function perRepo<T>(derive: (repo: Repo) => T): (repo: Repo) => T {
  return perObject<Repo, T>(derive);
}
