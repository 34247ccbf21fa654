/**
 * Images that work together only at one release (`releasedWith` in the image
 * facts: Tdarr's node and its server). The gate refuses a change that moves
 * one without the other, so Renovate must propose both in one pull request:
 * two would each stay red, and neither could merge.
 */
import { facts, type loadRepo } from '../../policy-tests/index.ts';
import type { ExtractedDep, Question } from './renovate.ts';

/** A pair Renovate would split: the image, the one it is released with, the facts file that says so, and the groups. */
export interface SplitPair {
  image: string;
  partner: string;
  file: string;
  groups: (string | undefined)[];
}

/** What to ask Renovate of the pairs of the repository, and which of them it would not propose in one group. */
export function pairsQuestion(repo: Awaited<ReturnType<typeof loadRepo>>, deps: readonly ExtractedDep[]): Question<SplitPair[]> {
  const { needs } = facts.repoImageNeeds(repo);
  const pairs = [...needs.values()].flatMap((n) => (n.releasedWith ? [{ image: n.image, partner: n.releasedWith, file: n.file }] : []));
  const pinsOf = (image: string) => deps.filter((d) => d.datasource === 'docker' && d.depName !== undefined && facts.imageKey(d.depName) === image);
  const asked = pairs.map((p) => [...pinsOf(p.image), ...pinsOf(p.partner)]);
  return {
    asked: asked.flat(),
    judge(answers) {
      const split: SplitPair[] = [];
      let at = 0;
      pairs.forEach((pair, i) => {
        const mine = answers.slice(at, (at += asked[i]!.length)).map((a) => a.group);
        if (mine.length > 1 && (mine.includes(undefined) || new Set(mine).size > 1)) split.push({ ...pair, groups: [...new Set(mine)] });
      });
      return split;
    },
  };
}
