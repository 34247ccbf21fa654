/**
 * The reader of the kubelet's sysctl allowlist tests (upstream/kubelet-sysctl-cases.ts), on a file written in their
 * form: pattern lists refused or not, pod sysctls against the test's allowlist, a host namespace refused.
 */
import { describe, expect, it } from 'vitest';
import { kubeletSysctlAgreement, kubeletSysctlCases } from '../../admission/upstream/kubelet-sysctl-cases.ts';

const TEST = `
func TestNewAllowlist(t *testing.T) {
	for _, test := range []Test{
		{sysctls: []string{"kernel/msg*", "kernel.sem"}},
		{sysctls: []string{"foo*"}, err: true},
	} {
	}
}

func TestAllowlist(t *testing.T) {
	valid := []Test{
		{sysctl: "kernel/msgmax"},
		{sysctl: "net.b.c"},
	}
	invalid := []Test{
		{sysctl: "net.b.c", hostNet: true},
		{sysctl: "net.a.b.c", hostNet: false},
	}
	w, err := NewAllowlist(append(SafeSysctlAllowlist(tCtx), "kernel.msg*", "net.b.*"))
}
`;

describe("the reader of the kubelet's sysctl allowlist tests", () => {
  const cases = kubeletSysctlCases(TEST, 36);

  it('reads each pattern list and each pod sysctl with what the kubelet does with it', () => {
    expect(cases.map((c) => `${c.test} ${c.name} ${c.refused ? 'refused' : 'admitted'}`)).toEqual([
      'TestNewAllowlist ["kernel/msg*","kernel.sem"] admitted',
      'TestNewAllowlist ["foo*"] refused',
      'TestAllowlist kernel/msgmax admitted',
      'TestAllowlist net.b.c admitted',
      'TestAllowlist net.b.c hostNetwork refused',
      'TestAllowlist net.a.b.c refused',
    ]);
  });

  it('agrees where the gate refuses or admits as the kubelet does, and disagrees otherwise', () => {
    expect(kubeletSysctlAgreement(cases).agree).toBe(6);
    const flipped = kubeletSysctlAgreement([{ ...cases[2]!, refused: true }]);
    expect(flipped.disagreements[0]!.why).toBe('the gate admits it, the kubelet refuses it');
  });
});
