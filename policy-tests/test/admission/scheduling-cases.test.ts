/**
 * The reader of component-helpers' scheduling and sysctl tests (upstream/scheduling-cases.ts), on tables written in
 * their form: rows read, a taint filter's function literal read as its comparison, a feature-gated row declined, a
 * row it cannot read counted apart with why.
 */
import { describe, expect, it } from 'vitest';
import { schedulingAgreement, schedulingCases } from '../../admission/upstream/scheduling-cases.ts';

const NODEAFFINITY = `
func TestPodMatchesNodeSelectorAndAffinityTerms(t *testing.T) {
	tests := []struct {
		name     string
		pod      *v1.Pod
		labels   map[string]string
		nodeName string
		want     bool
	}{
		{
			name: "same labels",
			pod: &v1.Pod{Spec: v1.PodSpec{NodeSelector: map[string]string{"Foo": "bar"}}},
			labels: map[string]string{"Foo": "bar"},
			want: true,
		},
		{
			name: "a name that does not match",
			pod: &v1.Pod{Spec: v1.PodSpec{Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
					{MatchFields: []v1.NodeSelectorRequirement{{Key: metav1.ObjectNameField, Operator: v1.NodeSelectorOpIn, Values: []string{"node_1"}}}},
				}}}}}},
			nodeName: "node_2",
			want: false,
		},
		{
			name: "a helper it does not know",
			pod: mystery(),
		},
	}
}
`;
const HELPERS = `
func TestFindMatchingUntoleratedTaint(t *testing.T) {
	testCases := []struct {
		description                 string
		tolerations                 []v1.Toleration
		taints                      []v1.Taint
		applyFilter                 taintsFilterFunc
		expectTolerated             bool
		enableComparisonOperatorsFG bool
	}{
		{
			description: "only NoExecute taints count",
			taints: []v1.Taint{{Key: "foo", Effect: v1.TaintEffectNoSchedule}},
			applyFilter: func(t *v1.Taint) bool { return t.Effect == v1.TaintEffectNoExecute },
			expectTolerated: true,
		},
		{
			description: "a comparison",
			tolerations: []v1.Toleration{{Key: "foo", Operator: "Gt", Value: "1"}},
			taints: []v1.Taint{{Key: "foo", Value: "2", Effect: v1.TaintEffectNoSchedule}},
			applyFilter: func(t *v1.Taint) bool { return true },
			expectTolerated: true,
			enableComparisonOperatorsFG: true,
		},
	}
}
`;
const NAMESPACE = `
func TestNamespacedOf(t *testing.T) {
	tests := map[string]Namespace{
		"fs.mqueue.a.b.c":        IPCNamespace,
		"foo":                    UnknownNamespace,
	}
}
`;
const SYSCTL = `valid := []testCase{
		{in: "net/ipv4/conf/eno2.100/rp_filter", out: "net.ipv4.conf.eno2/100.rp_filter"},
	}`;

describe("the reader of component-helpers' scheduling and sysctl tests", () => {
  const table = schedulingCases({ nodeaffinity: NODEAFFINITY, helpers: HELPERS, sysctlNamespace: NAMESPACE, sysctl: SYSCTL });

  it('reads each row into a case of its test, declines a feature-gated one, and counts one it cannot read apart', () => {
    expect(table.cases.map((c) => `${c.test}/${c.name}: ${c.want}`)).toEqual([
      'TestPodMatchesNodeSelectorAndAffinityTerms/same labels: true',
      'TestPodMatchesNodeSelectorAndAffinityTerms/a name that does not match: false',
      'TestFindMatchingUntoleratedTaint/only NoExecute taints count: true',
      'TestNamespacedOf/fs.mqueue.a.b.c: ipc',
      'TestNamespacedOf/foo: ',
      'TestConvertSysctlVariableToDotsSeparator/net/ipv4/conf/eno2.100/rp_filter: net.ipv4.conf.eno2/100.rp_filter',
    ]);
    expect(table.declined.map((d) => d.name)).toEqual(['TestFindMatchingUntoleratedTaint/a comparison']);
    expect(table.unread).toEqual([{ name: 'TestPodMatchesNodeSelectorAndAffinityTerms/a helper it does not know', why: 'unknown function mystery' }]);
  });

  it('agrees where the port answers as the row expects (a label key kept as written), and counts what it cannot read as not agreeing', () => {
    const a = schedulingAgreement(table);
    expect([a.agree, a.total]).toEqual([6, 7]);
    expect(a.disagreements.map((d) => d.file)).toEqual(['TestPodMatchesNodeSelectorAndAffinityTerms/a helper it does not know']);
  });

  it('disagrees where the answer differs', () => {
    const flipped = { ...table, cases: [{ ...table.cases[0]!, want: 'false' }], unread: [] };
    expect(schedulingAgreement(flipped).disagreements[0]!.why).toBe('the gate answers true, component-helpers false');
  });
});
