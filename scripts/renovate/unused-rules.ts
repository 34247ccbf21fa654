/**
 * Package rules that name packages no dependency has. A rule of the repository's Renovate config that names
 * packages (matchPackageNames, matchDepNames) applies only to a dependency Renovate's own matchers take by those
 * names: a slip (`registry.k8s.io/etdc`) or a package since renamed leaves the rule applying to nothing, and what it
 * holds back (etcd's next minor, which a snapshot cannot be restored into) comes as an ordinary pull request. The
 * validator passes such a rule: its names are well formed. Asked of Renovate's functions (groups.mjs), offline.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nearestName } from '../../policy-tests/index.ts';
import { RENOVATE_CONFIG_FILE, type ExtractedDep, type Question } from './renovate.ts';

/** Renovate's own JSON5 reader, from its pinned npm project (the one its validator reads the config with). */
const json5 = createRequire(new URL('../../tools/renovate/node_modules/', import.meta.url))('json5') as { parse: (text: string) => unknown };

/** A name of a rule that takes no dependency: the rule's place, the line the name stands on, and a dependency's name one slip from it. */
export interface UnusedRule {
  index: number;
  line: number;
  name: string;
  meant?: string;
}

const NAME_KEYS = ['matchPackageNames', 'matchDepNames'] as const;

/** Each name the config file's own rules give (a negated one aside), as `rule.key.place`, with the line it stands on. */
function ruleNames(text: string): { place: string; index: number; line: number; name: string }[] {
  const rules = (json5.parse(text) as { packageRules?: unknown }).packageRules;
  const lines = text.split('\n');
  let from = 0;
  return (Array.isArray(rules) ? rules : []).flatMap((rule: Record<string, unknown>, index) =>
    NAME_KEYS.flatMap((key) =>
      (Array.isArray(rule?.[key]) ? (rule[key] as unknown[]) : []).flatMap((name, j) => {
        if (typeof name !== 'string' || name.startsWith('!')) return [];
        const at = lines.findIndex((l, i) => i >= from && (l.includes(`'${name}'`) || l.includes(`"${name}"`)));
        if (at >= 0) from = at;
        return [{ place: `${index}.${key}.${j}`, index, line: at + 1, name }];
      }),
    ),
  );
}

/** An exact name, as against a glob or a regular expression, which a slip cannot be read from. */
const isExact = (name: string) => !/[*?{}[\]!]/.test(name) && !/^\/.*\/[a-z]*$/.test(name);

/** What to ask Renovate of the config's rules: every dependency, and which names of them took none. */
export function unusedRulesQuestion(root: string, deps: readonly ExtractedDep[]): Question<UnusedRule[]> {
  const names = ruleNames(readFileSync(join(root, RENOVATE_CONFIG_FILE), 'utf8'));
  const asked = names.length ? deps.filter((d) => d.depName !== undefined) : [];
  const known = [...new Set(asked.map((d) => d.depName!))];
  return {
    asked,
    judge(answers) {
      const used = new Set(answers.flatMap((a) => a.rules));
      return names
        .filter((n) => !used.has(n.place))
        .map(({ index, line, name }) => {
          const meant = isExact(name) ? nearestName(name, known) : undefined;
          return { index, line, name, ...(meant && meant !== name ? { meant } : {}) };
        });
    },
  };
}
