/**
 * k8s.io/apiextensions-apiserver's Test_validateDeprecationWarning (pkg/apis/apiextensions/validation/validation_test.go),
 * read as data: each row's version (deprecated or not, with its warning) judged as the gate judges a CRD's version
 * (validation/crd-definition.ts), and the reasons it gives held to the row's, as the test compares them. A warning
 * that is not UTF-8 (a Go string may hold any bytes; a JSON or YAML text cannot) is declined; a row this reader
 * cannot follow is counted as not read.
 */
import { definitionProblems } from '../validation/crd-definition.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { blockAt, builtinEnvironment, structTableRows } from './go-literals.ts';

export interface DeprecationWarningCase {
  test: string;
  deprecated: boolean;
  warning?: string;
  want: string[];
}

const ENV = builtinEnvironment();

/** A Go string literal's bytes that are no UTF-8 (`\xc5` alone). */
const notUtf8 = (goText: string): boolean => /\\x[89a-fA-F][0-9a-fA-F]/.test(goText);

export function deprecationWarningCases(testGo: string): {
  cases: DeprecationWarningCase[];
  declined: { test: string; why: string }[];
  unread: { test: string; why: string }[];
} {
  const out = { cases: [] as DeprecationWarningCase[], declined: [] as { test: string; why: string }[], unread: [] as { test: string; why: string }[] };
  const at = testGo.indexOf('func Test_validateDeprecationWarning(');
  if (at === -1) return out;
  for (const { text, row, why } of structTableRows(blockAt(testGo, testGo.indexOf('{', at)), /tests/, ENV)) {
    const test = `Test_validateDeprecationWarning/${/name:\s*"((?:[^"\\]|\\.)*)"/.exec(text)?.[1] ?? '(unnamed)'}`;
    if (notUtf8(text)) out.declined.push({ test, why: 'a warning that is not UTF-8, which no JSON or YAML text can hold' });
    else if (!row) out.unread.push({ test, why: why ?? 'unread' });
    else
      out.cases.push({
        test,
        deprecated: row.deprecated === true,
        ...(typeof row.warning === 'string' ? { warning: row.warning } : {}),
        want: (row.want as string[] | null | undefined) ?? [],
      });
  }
  return out;
}

/** The reasons the gate gives a version's warning: each problem's words after `Invalid value: "<warning>": `. */
function reasons(c: DeprecationWarningCase): string[] {
  const version = {
    name: 'v1',
    served: true,
    storage: true,
    schema: { openAPIV3Schema: { type: 'object' } },
    deprecated: c.deprecated,
    deprecationWarning: c.warning,
  };
  const crd = { spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'things', kind: 'Thing' }, versions: [version] } };
  return definitionProblems(crd)
    .filter((p) => p.at.at(-1) === 'deprecationWarning')
    .map((p) => p.detail.replace(/^Invalid value: "(?:[^"\\]|\\.)*": /, ''));
}

export function deprecationWarningAgreement(cases: readonly DeprecationWarningCase[], unread: readonly { test: string; why: string }[] = []): Agreement {
  const a = emptyAgreement();
  for (const c of cases) {
    const got = reasons(c);
    const ok = JSON.stringify(got) === JSON.stringify(c.want);
    count(a, { group: c.want.length ? 'refused' : 'admitted', ok, file: c.test, why: `said ${JSON.stringify(got)}, upstream ${JSON.stringify(c.want)}` });
  }
  for (const u of unread) count(a, { group: 'not read', ok: false, file: u.test, why: `not read: ${u.why}` });
  return a;
}
