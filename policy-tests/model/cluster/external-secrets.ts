/** Which Secrets an ExternalSecret writes: a secret the repo refers to must be one of them, never a committed value. */
import { perRepo } from '../repository/per-repo.ts';
import type { Repo } from '../repository/repo.ts';

const targets = perRepo((repo: Repo) => {
  const names = new Set<string>();
  for (const r of repo.resources.filter((x) => x.kind === 'ExternalSecret')) {
    const name = (r.object.spec as { target?: { name?: string } })?.target?.name ?? r.name;
    names.add(name);
    names.add(`${r.namespace ?? ''}/${name}`);
  }
  return names;
});

/** True when an ExternalSecret writes Secret `name` (in `namespace`, when given). */
export function writtenByExternalSecret(repo: Repo, name: string | undefined, namespace?: string): boolean {
  if (!name) return false;
  return targets(repo).has(namespace === undefined ? name : `${namespace}/${name}`);
}
