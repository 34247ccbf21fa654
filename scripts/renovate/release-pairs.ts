/**
 * Images that work together only at one release (`releasedWith` in the image
 * facts: Tdarr's node and its server). The gate refuses a change that moves
 * one without the other, so Renovate must propose both in one pull request:
 * two would each stay red, and neither could merge.
 */
import { facts, loadRepo } from '../../policy-tests/index.ts';
import { groupsOf, type ExtractedDep } from './renovate.ts';

/** A pair Renovate would split: the image, the one it is released with, the facts file that says so, and the groups. */
export interface SplitPair {
  image: string;
  partner: string;
  file: string;
  groups: (string | undefined)[];
}

/** Every pair of the repository at `root` whose pins Renovate would not propose in one group. */
export async function splitPairs(root: string, deps: readonly ExtractedDep[]): Promise<SplitPair[]> {
  const { needs } = facts.repoImageNeeds(await loadRepo(root));
  const pairs = [...needs.values()].flatMap((n) => (n.releasedWith ? [{ image: n.image, partner: n.releasedWith, file: n.file }] : []));
  const pinsOf = (image: string) => deps.filter((d) => d.datasource === 'docker' && d.depName !== undefined && facts.imageKey(d.depName) === image);
  const asked = pairs.map((p) => [...pinsOf(p.image), ...pinsOf(p.partner)]);
  const groups = await groupsOf(root, asked.flat());
  const split: SplitPair[] = [];
  let at = 0;
  pairs.forEach((pair, i) => {
    const mine = groups.slice(at, (at += asked[i]!.length));
    if (mine.length > 1 && (mine.includes(undefined) || new Set(mine).size > 1)) split.push({ ...pair, groups: [...new Set(mine)] });
  });
  return split;
}
