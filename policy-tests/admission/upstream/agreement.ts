/** Agreement with upstream test data: cases and those the gate agrees with, by group, and every disagreement with why. */
export interface Agreement {
  /** Per upstream check id (lower-cased, as the fixtures name it): cases and those the gate agrees with. */
  byGroup: Map<string, { cases: number; agree: number }>;
  total: number;
  agree: number;
  disagreements: { group: string; file: string; why: string }[];
}

export const emptyAgreement = (): Agreement => ({ byGroup: new Map(), total: 0, agree: 0, disagreements: [] });

/** One case counted in its group: `ok` when the gate agrees; else its file and why go to the disagreements. */
export function count(a: Agreement, { group, ok, file, why }: { group: string; ok: boolean; file: string; why: string }): void {
  const g = a.byGroup.get(group) ?? { cases: 0, agree: 0 };
  g.cases++;
  a.total++;
  if (ok) {
    g.agree++;
    a.agree++;
  } else a.disagreements.push({ group, file, why });
  a.byGroup.set(group, g);
}
