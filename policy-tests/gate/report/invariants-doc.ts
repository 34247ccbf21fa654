/**
 * docs/invariants.md, generated from the registry: each invariant id the
 * checks cite, with every check that enforces it and its description, so
 * the page cannot drift from the code (npm run readme:checks writes it; a
 * test fails when it is stale).
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { INVARIANTS } from '../../checks/registry.ts';

export const INVARIANTS_FILE = 'docs/invariants.md';

const HEADER = `# Invariants

Every policy check cites one or more invariant ids. This page states each id in the project's own words (each area states its own, beside its checks: \`invariants\` in its declaration), then the checks that enforce it, so a fork can look every id up without anything outside the repository. It is generated from the check registry (\`npm run readme:checks\`); \`policy-tests/test/gate/readme.test.ts\` fails when it is stale, or when a check cites an id missing here.
`;

/** Ids in reading order: by letter, then by number (A2 before A10). */
function byId(a: string, b: string): number {
  const [, la = '', na = '0'] = /^([A-Z]+)(\d*)$/.exec(a) ?? [];
  const [, lb = '', nb = '0'] = /^([A-Z]+)(\d*)$/.exec(b) ?? [];
  return la.localeCompare(lb) || Number(na) - Number(nb);
}

export function invariantsDoc(checks: readonly PolicyCheck[]): string {
  const ids = [...new Set(checks.flatMap((c) => c.invariants))].sort(byId);
  const lines = [HEADER];
  for (const id of ids) {
    lines.push(`- **${id}**: ${INVARIANTS[id] ?? '(not stated: no area states it)'}`);
    for (const c of checks.filter((x) => x.invariants.includes(id))) lines.push(`  - \`${c.id}\`: ${c.description}`);
  }
  return `${lines.join('\n')}\n`;
}
