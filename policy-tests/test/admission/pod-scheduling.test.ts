/**
 * A pod's scheduling fields as ValidatePodSpec judges them (pkg/apis/core/validation `validateAffinity`,
 * `validateTopologySpreadConstraints`; apimachinery `ValidateLabelSelector`), through the kind validation every
 * workload's template passes.
 */
import { describe, expect, it } from 'vitest';
import { validateBuiltin } from '../../admission/validation/kinds.ts';

const deployment = (spec: object) => ({
  metadata: { name: 'web' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }], ...spec } },
  },
});
const judged = (spec: object) => validateBuiltin('Deployment', deployment(spec), 35).map((p) => `${p.path.slice(3).join('.')}: ${p.message}`);

describe('node affinity', () => {
  const required = (...terms: object[]) => ({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });
  it('admits what charts write: In with values, Exists without, Gt with one, a preferred term of weight 1 to 100', () => {
    expect(
      judged({
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                {
                  matchExpressions: [
                    { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
                    { key: 'gpu', operator: 'Exists' },
                    { key: 'cores', operator: 'Gt', values: ['4'] },
                  ],
                  matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['node-1'] }],
                },
              ],
            },
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 100, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } },
            ],
          },
        },
      }),
    ).toEqual([]);
  });
  it('refuses an operator without the values it needs, values it does not take, no term, a weight out of range, a field other than metadata.name', () => {
    expect(judged(required())).toEqual([
      'affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: nodeSelectorTerms: must have at least one node selector term',
    ]);
    expect(
      judged(
        required({
          matchExpressions: [
            { key: 'a', operator: 'In' },
            { key: 'b', operator: 'Exists', values: ['x'] },
            { key: 'c', operator: 'Lt', values: ['1', '2'] },
            { key: 'd', operator: 'Equals', values: ['1'] },
            { key: 'bad key!', operator: 'Exists' },
          ],
          matchFields: [{ key: 'metadata.namespace', operator: 'In', values: ['a', 'b'] }],
        }),
      ),
    ).toEqual([
      expect.stringMatching(/matchExpressions\.0\.values: node selector requirement: values must be specified when `operator` is 'In' or 'NotIn'$/),
      expect.stringMatching(
        /matchExpressions\.1\.values: node selector requirement: values may not be specified when `operator` is 'Exists' or 'DoesNotExist'$/,
      ),
      expect.stringMatching(/matchExpressions\.2\.values: .*single value when `operator` is 'Lt' or 'Gt'$/),
      expect.stringMatching(
        /matchExpressions\.3\.operator: node selector requirement: Unsupported value: "Equals": supported values: "DoesNotExist", "Exists", "Gt", "In", "Lt", "NotIn"$/,
      ),
      expect.stringMatching(/matchExpressions\.4\.key: node selector requirement key "bad key!": name part must consist of/),
      expect.stringMatching(/matchFields\.0\.values: node field selector: values must be only one value/),
      expect.stringMatching(/matchFields\.0\.key: node field selector: "metadata\.namespace" is not a valid field selector key$/),
    ]);
    expect(
      judged({
        affinity: {
          nodeAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 0, preference: {} },
              { weight: 101, preference: {} },
            ],
          },
        },
      }),
    ).toEqual([
      expect.stringMatching(/\.0\.weight: weight 0: must be in the range 1-100$/),
      expect.stringMatching(/\.1\.weight: weight 101: must be in the range 1-100$/),
    ]);
  });
});

describe('pod affinity and anti-affinity', () => {
  it("admits a term with a topology key and a selector; refuses one without a key, a selector's operator without its values, a bad namespace, a weight out of range", () => {
    const term = (t: object) => ({ affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [t] } } });
    expect(judged(term({ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'web' } } }))).toEqual([]);
    expect(
      judged(
        term({
          labelSelector: {
            matchExpressions: [
              { key: 'app', operator: 'In', values: [] },
              { key: 'tier', operator: 'Exists', values: ['x'] },
              { key: 'x', operator: 'Has' },
            ],
          },
          namespaces: ['Media'],
        }),
      ),
    ).toEqual([
      expect.stringMatching(/\.0\.topologyKey: pod affinity term: topologyKey can not be empty$/),
      expect.stringMatching(
        /labelSelector\.matchExpressions\.0\.values: pod affinity labelSelector: values must be specified when `operator` is 'In' or 'NotIn'$/,
      ),
      expect.stringMatching(/labelSelector\.matchExpressions\.1\.values: pod affinity labelSelector: values may not be specified/),
      expect.stringMatching(/labelSelector\.matchExpressions\.2\.operator: pod affinity labelSelector: operator "Has": not a valid selector operator$/),
      expect.stringMatching(/\.0\.namespaces\.0: pod affinity namespace "Media": a lowercase RFC 1123 label/),
    ]);
    expect(
      judged({ affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 200, podAffinityTerm: { topologyKey: 'zone' } }] } } }),
    ).toEqual([expect.stringMatching(/podAffinity\.preferredDuringSchedulingIgnoredDuringExecution\.0\.weight: weight 200: must be in the range 1-100$/)]);
  });
});

describe('topology spread constraints', () => {
  const spread = (...c: object[]) => ({ topologySpreadConstraints: c });
  const good = { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } };
  it('admits a constraint as charts write it, with minDomains under DoNotSchedule and both inclusion policies', () => {
    expect(
      judged(spread({ ...good, minDomains: 2, nodeAffinityPolicy: 'Honor', nodeTaintsPolicy: 'Ignore' }, { ...good, whenUnsatisfiable: 'ScheduleAnyway' })),
    ).toEqual([]);
  });
  it('refuses a skew below one, no key, an unknown action, a pair given twice, minDomains under ScheduleAnyway or below one, an unknown policy', () => {
    expect(judged(spread({ maxSkew: 0, whenUnsatisfiable: 'Never' }))).toEqual([
      expect.stringMatching(/^topologySpreadConstraints\.0\.maxSkew: topology spread constraint: maxSkew 0: must be greater than zero$/),
      expect.stringMatching(/\.0\.topologyKey: topology spread constraint: topologyKey can not be empty$/),
      expect.stringMatching(/\.0\.whenUnsatisfiable: .*Unsupported value: "Never": supported values: "DoNotSchedule", "ScheduleAnyway"$/),
    ]);
    expect(judged(spread(good, { ...good, maxSkew: 2 }))).toEqual([expect.stringMatching(/^topologySpreadConstraints\.0\.topologyKey: .*is given twice$/)]);
    expect(judged(spread({ ...good, whenUnsatisfiable: 'ScheduleAnyway', minDomains: 0, nodeTaintsPolicy: 'Always' }))).toEqual([
      expect.stringMatching(/minDomains: topology spread constraint: minDomains 0: must be greater than zero$/),
      expect.stringMatching(/minDomains: .*can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway$/),
      expect.stringMatching(/nodeTaintsPolicy: .*Unsupported value: "Always": supported values: "Honor", "Ignore"$/),
    ]);
  });
});

describe('tolerations and the names a pod is placed by', () => {
  it('admits what charts write', () => {
    expect(
      judged({
        tolerations: [
          { operator: 'Exists' },
          { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
          { key: 'dedicated', operator: 'Equal', value: 'media', effect: 'NoExecute', tolerationSeconds: 30 },
          { key: 'gpu', value: 'true' },
        ],
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        priorityClassName: 'system-node-critical',
        readinessGates: [{ conditionType: 'example.com/ready' }],
        hostname: 'web-0',
        subdomain: 'web',
        serviceAccountName: 'web',
        hostAliases: [{ ip: '192.168.1.10', hostnames: ['nas.lan'] }],
      }),
    ).toEqual([]);
  });
  it('refuses a keyless Equal, a value under Exists, tolerationSeconds without NoExecute, an unknown operator or effect, bad names', () => {
    expect(
      judged({
        tolerations: [
          { operator: 'Equal', value: 'x' },
          { key: 'a', operator: 'Exists', value: 'yes' },
          { key: 'b', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 10 },
          { key: 'c', operator: 'Gt', value: '1' },
          { key: 'd', operator: 'Exists', effect: 'NoAdmit' },
          { key: 'e', value: 'not a label value' },
        ],
        nodeSelector: { 'bad key!': 'x' },
        priorityClassName: 'High',
        schedulingGates: [{ name: 'example.com/wait' }, { name: 'example.com/wait' }],
        hostname: 'web.0',
        serviceAccountName: 'Web',
        hostAliases: [{ ip: 'nas.lan', hostnames: ['NAS'] }],
        hostUsers: false,
        hostNetwork: true,
      }),
    ).toEqual([
      expect.stringMatching(/^tolerations\.0\.operator: toleration: operator must be Exists when `key` is empty/),
      expect.stringMatching(/^tolerations\.1\.operator: toleration: value must be empty when `operator` is 'Exists'$/),
      expect.stringMatching(/^tolerations\.2\.effect: toleration: effect must be 'NoExecute' when `tolerationSeconds` is set$/),
      expect.stringMatching(/^tolerations\.3\.operator: toleration: Unsupported value: "Gt": supported values: "Equal", "Exists"$/),
      expect.stringMatching(/^tolerations\.4\.effect: toleration: Unsupported value: "NoAdmit"/),
      expect.stringMatching(/^tolerations\.5\.operator: toleration: value "not a label value": a valid label must be/),
      expect.stringMatching(/^nodeSelector\.bad key!: label key "bad key!"/),
      expect.stringMatching(/^priorityClassName: priorityClassName "High": a lowercase RFC 1123 subdomain/),
      expect.stringMatching(/^schedulingGates\.1: scheduling gate "example\.com\/wait" is given twice$/),
      expect.stringMatching(/^hostname: hostname "web\.0": a lowercase RFC 1123 label/),
      expect.stringMatching(/^serviceAccountName: serviceAccountName "Web": a lowercase RFC 1123 subdomain/),
      expect.stringMatching(/^hostAliases\.0\.ip: host alias ip "nas\.lan": must be a valid IP address$/),
      expect.stringMatching(/^hostAliases\.0\.hostnames\.0: host alias hostname "NAS": a lowercase RFC 1123 subdomain/),
      expect.stringMatching(/^hostNetwork: hostNetwork is forbidden when `pod\.Spec\.HostUsers` is false$/),
    ]);
  });
});

describe('label keys filled from the pod', () => {
  const term = (t: object) => ({ affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'zone', ...t }] } } });
  it("an affinity term's: judged on the selector the API server creates each pod with, its keys merged in", () => {
    // A key the pod's labels hold is merged as `key In (value)`: beside a selector that names it, every pod is refused.
    expect(judged(term({ labelSelector: { matchLabels: { tier: 'web' } }, matchLabelKeys: ['pod-template-hash'] }))).toEqual([]);
    expect(judged(term({ labelSelector: { matchLabels: { app: 'web' } }, matchLabelKeys: ['app'] }))).toEqual([
      expect.stringMatching(/\.0\.matchLabelKeys\.0: matchLabelKeys "app": exists in both matchLabelKeys and labelSelector \(the API server merges/),
    ]);
    // A key the pod does not carry merges nothing.
    expect(judged(term({ labelSelector: { matchLabels: { tier: 'web' } }, matchLabelKeys: ['tier', 'absent'] }))).toEqual([]);
    expect(judged(term({ matchLabelKeys: ['app'] }))).toEqual([
      expect.stringMatching(/matchLabelKeys: matchLabelKeys: must not be specified when labelSelector is not set$/),
    ]);
    expect(judged(term({ labelSelector: {}, matchLabelKeys: ['app', 'bad key!'], mismatchLabelKeys: ['app'] }))).toEqual([
      expect.stringMatching(/matchLabelKeys\.1: matchLabelKeys key "bad key!": name part must consist/),
      // The pod's app label merged twice, In then NotIn: the second is a key the selector already names, as upstream counts it.
      expect.stringMatching(/matchLabelKeys\.0: matchLabelKeys "app": exists in both matchLabelKeys and labelSelector/),
      expect.stringMatching(/matchLabelKeys\.0: matchLabelKeys "app": exists in both matchLabelKeys and mismatchLabelKeys$/),
    ]);
    // Before 1.31 the API server drops both fields (MatchLabelKeysInPodAffinity off): nothing to refuse.
    expect(validateBuiltin('Deployment', deployment(term({ matchLabelKeys: ['app'] })), 30)).toEqual([]);
  });
  describe("a spread constraint's", () => {
    const spread = (c: object) => ({
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', ...c }],
    });
    const at = (minor: number, c: object) =>
      validateBuiltin('Deployment', deployment(spread(c)), minor).map((p) => `${p.path.slice(3).join('.')}: ${p.message}`);
    it('from 1.34, judged on the selector each pod is created with (MatchLabelKeysInPodTopologySpreadSelectorMerge)', () => {
      expect(at(35, { labelSelector: { matchLabels: { tier: 'web' } }, matchLabelKeys: ['pod-template-hash'] })).toEqual([]);
      // The template's own `app` merged in beside the selector's `app`: every pod is refused.
      expect(at(35, { labelSelector: { matchLabels: { app: 'web' } }, matchLabelKeys: ['app'] })).toEqual([
        expect.stringMatching(/^topologySpreadConstraints\.0\.matchLabelKeys\.0: matchLabelKeys "app": exists in both matchLabelKeys and labelSelector \(/),
      ]);
      expect(at(35, { matchLabelKeys: ['app'] })).toEqual([
        'topologySpreadConstraints.0.matchLabelKeys: matchLabelKeys: must not be specified when labelSelector is not set',
      ]);
    });
    it('before 1.34, judged against the selector as written; before 1.27, dropped', () => {
      const named = { labelSelector: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, matchLabelKeys: ['tier', 'bad key!'] };
      expect(at(33, named)).toEqual([
        'topologySpreadConstraints.0.matchLabelKeys.0: matchLabelKeys "tier": exists in both matchLabelKeys and labelSelector',
        expect.stringMatching(/^topologySpreadConstraints\.0\.matchLabelKeys\.1: matchLabelKeys key "bad key!": /),
      ]);
      // From 1.34 the template holds no `tier` label, so nothing is merged and only the bad key is refused.
      expect(at(35, named)).toEqual([expect.stringMatching(/^topologySpreadConstraints\.0\.matchLabelKeys\.1: matchLabelKeys key "bad key!": /)]);
      expect(at(26, named)).toEqual([]);
    });
  });
});
