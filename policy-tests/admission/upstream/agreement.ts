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

/** A row of an upstream table read apart from the cases: its name, and why. */
export interface RowNote {
  name: string;
  why: string;
}

/** An upstream test table read as data: the cases the gate is held to, and the rows it could not read. */
export interface UpstreamTable<C> {
  cases: C[];
  unread: RowNote[];
}

/** A table some of whose rows are declined, each with why (a row no object the API server sends can be). */
export interface DecliningTable<C> extends UpstreamTable<C> {
  declined: RowNote[];
}

/** Each row the reader could not read, counted against the gate under `not read`: a row it cannot follow is never agreement. */
export function countUnread(a: Agreement, unread: readonly RowNote[]): void {
  for (const u of unread) count(a, { group: 'not read', ok: false, file: u.name, why: `not read: ${u.why}` });
}

/** A case whose answer and whose upstream expectation are each one text. */
export interface TextCase {
  test: string;
  name: string;
  judge: () => string;
  want: string;
}

/** How many text cases the gate answers as `upstream` expects, each in its test's group; `show` prints an answer. */
export function textAgreement(table: UpstreamTable<TextCase>, upstream: string, show: (text: string) => string = (t) => t): Agreement {
  const a = emptyAgreement();
  for (const c of table.cases) {
    const got = c.judge();
    count(a, { group: c.test, ok: got === c.want, file: `${c.test}/${c.name}`, why: `the gate answers ${show(got)}, ${upstream} ${show(c.want)}` });
  }
  countUnread(a, table.unread);
  return a;
}
