/**
 * Agreement with Kubernetes' own test data, as pure functions of what the
 * caller read from upstream checkouts (scripts/conformance.ts reads them;
 * nothing upstream is committed):
 *   - Pod Security: k8s.io/pod-security-admission's generated fixtures,
 *     test/testdata/<level>/v1.<minor>/{pass,fail}/<check><n>.yaml;
 *   - the CEL libraries' function list: the names
 *     k8s.io/apiserver's library_compatibility_test.go assigns to a release.
 */
import { OVERRIDDEN_AT_RESTRICTED, podSecurityViolations, type Level } from './pod-security.ts';
import { implementedFunctions } from './cel/crd-rules.ts';

export interface PodSecurityFixture {
  level: Exclude<Level, 'privileged'>;
  expect: 'pass' | 'fail';
  /** The file name without its number: the check it exercises, lower-cased (procmount_restricted). */
  check: string;
  file: string;
  pod: Record<string, unknown>;
}

export interface Agreement {
  /** Per upstream check id (lower-cased, as the fixtures name it): cases and those the gate agrees with. */
  byGroup: Map<string, { cases: number; agree: number }>;
  total: number;
  agree: number;
  disagreements: { group: string; file: string; why: string }[];
}

const emptyAgreement = (): Agreement => ({ byGroup: new Map(), total: 0, agree: 0, disagreements: [] });

function count(a: Agreement, group: string, ok: boolean, file: string, why: string): void {
  const g = a.byGroup.get(group) ?? { cases: 0, agree: 0 };
  g.cases++;
  a.total++;
  if (ok) {
    g.agree++;
    a.agree++;
  } else a.disagreements.push({ group, file, why });
  a.byGroup.set(group, g);
}

/** The fixture's check from its file name: `procmount_restricted0.yaml` → `procmount_restricted`. */
export const fixtureCheck = (fileName: string): string => fileName.replace(/\.ya?ml$/, '').replace(/\d+$/, '');

/**
 * A pass fixture must meet its level with no violation; a fail fixture must be refused at its level by the control
 * it is named after (upstream's id, lower-cased, as the fixture files spell it).
 */
export function podSecurityAgreement(fixtures: readonly PodSecurityFixture[]): Agreement {
  const a = emptyAgreement();
  for (const f of fixtures) {
    const meta = (f.pod.metadata ?? {}) as Record<string, unknown>;
    const violations = podSecurityViolations(f.level, meta, (f.pod.spec ?? {}) as Record<string, unknown>);
    const controls = [...new Set(violations.map((v) => v.control.toLowerCase()))];
    if (f.expect === 'pass') count(a, f.check, controls.length === 0, f.file, `refused by ${controls.join(', ')}, upstream admits it`);
    else {
      // At restricted, a baseline check another one overrides is not run: the overriding check refuses instead.
      const override = [...OVERRIDDEN_AT_RESTRICTED].find(([baseline]) => baseline.toLowerCase() === f.check)?.[1]?.toLowerCase();
      const expected = f.level === 'restricted' && override ? override : f.check;
      count(
        a,
        f.check,
        controls.includes(expected),
        f.file,
        controls.length ? `refused by ${controls.join(', ')}, not ${expected}` : 'admitted, upstream refuses it',
      );
    }
  }
  return a;
}

/**
 * The Kubernetes library function names up to a minor version, from library_compatibility_test.go's
 * `// Kubernetes <1.NN>:` comment lines and the quoted names after each.
 */
export function libraryFunctionNames(goSource: string, minor: number): string[] {
  const names = new Set<string>();
  let release: number | undefined;
  for (const line of goSource.split('\n')) {
    const heading = /\/\/\s*Kubernetes\s*<?1\.(\d+|\?\?)>?:/.exec(line);
    if (heading) {
      release = heading[1] === '??' ? undefined : Number(heading[1]);
      continue;
    }
    if (release === undefined || release > minor) continue;
    if (/^\s*\)/.test(line)) break;
    for (const m of line.matchAll(/"([A-Za-z_.]+)"/g)) names.add(m[1]!);
  }
  return [...names].sort();
}

/** Which of these function names the gate's evaluator implements. */
export function functionAgreement(names: readonly string[]): Agreement {
  const a = emptyAgreement();
  const known = implementedFunctions();
  for (const name of names) count(a, 'functions', known.has(name), name, 'not implemented by the gate');
  return a;
}
