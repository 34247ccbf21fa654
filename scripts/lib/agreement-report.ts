/** How the conformance command reads an upstream file and prints an agreement: the figure, each group, each disagreement. */
import { readFileSync } from 'node:fs';
import type { conformance } from '../../policy-tests/index.ts';

type Agreement = conformance.Agreement;

/** A file of an upstream checkout; a missing one is a one-line error naming it. */
export function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

export const percent = (a: number, b: number) => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(1)}%`);

export function report(title: string, a: Agreement, print: (t: string) => void): void {
  print(`${title}: ${a.agree}/${a.total} agree (${percent(a.agree, a.total)})\n`);
  for (const [group, g] of [...a.byGroup].sort(([x], [y]) => x.localeCompare(y))) print(`  ${group.padEnd(32)} ${g.agree}/${g.cases}\n`);
  for (const d of a.disagreements) print(`  DISAGREES ${d.file}: ${d.why}\n`);
}
