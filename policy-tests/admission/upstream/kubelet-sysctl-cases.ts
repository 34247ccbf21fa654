/**
 * The kubelet's sysctl allowlist tests (kubernetes/kubernetes pkg/kubelet/sysctl/allowlist_test.go), read as data:
 * `TestNewAllowlist`'s patterns, each list refused or not when the kubelet builds its allowlist from the safe
 * sysctls and them (the gate's `kubeletAllowlist`, which says the kubelet would not start); and `TestAllowlist`'s
 * sysctls against the allowlist the test builds, each admitted or refused as a pod's sysctl. A sysctl of a namespace
 * the pod shares with its node (hostNetwork, hostIPC) the kubelet refuses, and the API server refuses first
 * (`ValidateHostSysctl`), which is where the gate says it: the row is judged by both, as a pod meets them.
 */
import { kubeletAllowlist, sysctlRefusal } from '../checks/kubelet-admits.ts';
import { securityProfileProblems } from '../validation/security-profiles.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';

export interface KubeletSysctlCase {
  test: 'TestNewAllowlist' | 'TestAllowlist';
  name: string;
  /** The gate's answer, true for refused. */
  judge: () => boolean;
  refused: boolean;
}

const quoted = (text: string): string[] => [...text.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string);
const flag = (row: string, name: string): boolean => new RegExp(`\\b${name}:\\s*true\\b`).test(row);

/** The rows of a `[]Test{ {...}, ... }` list, each row's text between its braces. */
const rowsOf = (list: string): string[] => [...list.matchAll(/\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}/g)].map((m) => m[1]!);

/** Both tests' rows, at the Kubernetes version the cluster runs (the safe sysctls follow it). */
export function kubeletSysctlCases(testSource: string, minor: number): KubeletSysctlCase[] {
  const cases: KubeletSysctlCase[] = [];
  const newList = /func TestNewAllowlist[\s\S]*?range \[\]Test\{([\s\S]*?)\n\t\} \{/.exec(testSource)?.[1] ?? '';
  for (const row of rowsOf(newList)) {
    const patterns = quoted(row);
    cases.push({
      test: 'TestNewAllowlist',
      name: JSON.stringify(patterns),
      refused: flag(row, 'err'),
      judge: () => kubeletAllowlist(patterns, minor).refused.length > 0,
    });
  }
  const body = /func TestAllowlist[\s\S]*$/.exec(testSource)?.[0] ?? '';
  const extra = quoted(/NewAllowlist\(append\(SafeSysctlAllowlist\(\w+\),([^)]*)\)\)/.exec(body)?.[1] ?? '');
  const { allow } = kubeletAllowlist(extra, minor);
  for (const [list, refused] of [
    ['valid', false],
    ['invalid', true],
  ] as const) {
    const rows = new RegExp(`\\b${list} := \\[\\]Test\\{([\\s\\S]*?)\\n\\t\\}`).exec(body)?.[1] ?? '';
    for (const row of rowsOf(rows)) {
      const [sysctl = ''] = quoted(row);
      const spec = { hostNetwork: flag(row, 'hostNet'), hostIPC: flag(row, 'hostIPC'), securityContext: { sysctls: [{ name: sysctl, value: '1' }] } };
      const judge = () => sysctlRefusal(allow, sysctl) !== undefined || securityProfileProblems(spec, ['spec']).some((p) => p.fn === 'ValidateHostSysctl');
      cases.push({ test: 'TestAllowlist', name: `${sysctl}${spec.hostNetwork ? ' hostNetwork' : ''}${spec.hostIPC ? ' hostIPC' : ''}`, refused, judge });
    }
  }
  return cases;
}

/** How many rows the gate refuses or admits as the kubelet does. */
export function kubeletSysctlAgreement(cases: readonly KubeletSysctlCase[]): Agreement {
  const a = emptyAgreement();
  for (const c of cases) {
    const got = c.judge();
    count(a, {
      group: c.test,
      ok: got === c.refused,
      file: `${c.test}/${c.name}`,
      why: `the gate ${got ? 'refuses' : 'admits'} it, the kubelet ${c.refused ? 'refuses' : 'admits'} it`,
    });
  }
  return a;
}
