/**
 * network-policy-scrape-path beyond its mutation (an unrendered stack, judged by namespace): a rendered Prometheus
 * is let in by the labels the operator gives its pods, a PodMonitor's port is judged like a ServiceMonitor's, the
 * Alertmanager it sends to is reached through the pods the operator makes, and a CiliumNetworkPolicy's ingress is
 * judged with the NetworkPolicies (model/cilium/ingress.ts). network-policy-peers now knows those operator-made pods too.
 */
import { describe, expect, it } from 'vitest';
import { scrapePathCheck } from '../../checks/network-policy/scrape-path.ts';
import { networkPolicyChecks } from '../../checks/network-policy/network-policy.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const template = repo.resources.find((r) => r.kind === 'Service')!;
const API_VERSIONS: Record<string, string> = {
  Prometheus: 'monitoring.coreos.com/v1',
  Alertmanager: 'monitoring.coreos.com/v1',
  PodMonitor: 'monitoring.coreos.com/v1',
  NetworkPolicy: 'networking.k8s.io/v1',
  CiliumNetworkPolicy: 'cilium.io/v2',
};
const make = (kind: string, name: string, namespace: string, body: Record<string, unknown>) => {
  const apiVersion = API_VERSIONS[kind] ?? 'v1';
  return { ...template, apiVersion, kind, name, namespace, object: { apiVersion, kind, metadata: { name, namespace }, ...body } } as unknown as Resource;
};
const prometheus = (spec: Record<string, unknown> = {}) =>
  make('Prometheus', 'k8s', 'monitoring', {
    spec: { serviceMonitorSelector: {}, serviceMonitorNamespaceSelector: {}, podMonitorSelector: {}, podMonitorNamespaceSelector: {}, ...spec },
  });

/** The repository with the API's scraper rule narrowed to pods by `labels`, and `extra` objects. */
function withScraperPods(labels: Record<string, string> | undefined, ...extra: Resource[]): Repo {
  const resources = repo.resources.map((r) => {
    if (r.kind !== 'NetworkPolicy' || r.name !== 'portfolio-api' || !labels) return r;
    const object = structuredClone(r.object) as { spec: { ingress: { from: Record<string, unknown>[] }[] } };
    object.spec.ingress[1]!.from[0]!.podSelector = { matchLabels: labels };
    return { ...r, object } as Resource;
  });
  return { ...repo, resources: [...resources, ...extra] };
}
/** The repository with the API's pods on the node's network. */
function apiOnHostNetwork(base: Repo): Repo {
  const resources = base.resources.map((r) => {
    if (r.kind !== 'Deployment' || r.name !== 'portfolio-api') return r;
    const object = structuredClone(r.object) as { spec: { template: { spec: Record<string, unknown> } } };
    object.spec.template.spec.hostNetwork = true;
    return { ...r, object } as Resource;
  });
  return { ...base, resources };
}
const findings = (r: Repo, checks = [scrapePathCheck]) => runPolicy(r, checks).map((f) => [f.severity ?? 'fail', f.message]);

describe('network-policy-scrape-path', () => {
  it("lets a rendered Prometheus in by its pods' labels, and fails a rule naming labels they do not carry", () => {
    expect(findings(withScraperPods({ 'app.kubernetes.io/name': 'prometheus' }, prometheus()))).toEqual([]);
    expect(findings(withScraperPods({ app: 'prometheus' }, prometheus()))).toEqual([
      [
        'fail',
        expect.stringMatching(
          /^ServiceMonitor portfolio\/portfolio-api scrapes port metrics behind Service portfolio\/portfolio-api, to the pods of Deployment portfolio-api, which NetworkPolicies default-deny and portfolio-api isolate them in portfolio with no ingress rule that lets Prometheus in from namespace monitoring on that port/,
        ),
      ],
    ]);
    // Unrendered, the stack's pods are unknown: the namespace alone is judged.
    expect(findings(withScraperPods({ app: 'prometheus' }))).toEqual([]);
  });

  it("judges a PodMonitor's port as the pods declare it", () => {
    const monitor = make('PodMonitor', 'api', 'portfolio', {
      spec: { selector: { matchLabels: { 'app.kubernetes.io/name': 'portfolio-api' } }, podMetricsEndpoints: [{ port: 'http' }] },
    });
    expect(findings(withScraperPods(undefined, prometheus(), monitor))).toEqual([
      ['fail', expect.stringMatching(/^PodMonitor portfolio\/api scrapes port http, to the pods of Deployment portfolio-api/)],
    ]);
  });

  it('reaches the Alertmanager it sends to through the pods the operator makes, on the port it names', () => {
    const am = make('Alertmanager', 'main', 'alerts', { spec: {} });
    const service = make('Service', 'alertmanager', 'alerts', {
      spec: { selector: { 'app.kubernetes.io/name': 'alertmanager' }, ports: [{ name: 'web', port: 9093, targetPort: 'web' }] },
    });
    const deny = make('NetworkPolicy', 'default-deny', 'alerts', { spec: { podSelector: {}, policyTypes: ['Ingress'] } });
    const letIn = (port: unknown) =>
      make('NetworkPolicy', 'prometheus', 'alerts', {
        spec: {
          podSelector: {},
          ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }], ports: [{ port }] }],
        },
      });
    const namespace = make('Namespace', 'alerts', '', {});
    const sending = prometheus({ alerting: { alertmanagers: [{ namespace: 'alerts', name: 'alertmanager', port: 'web' }] } });
    expect(findings(withScraperPods(undefined, sending, namespace, am, service, deny, letIn(9093)))).toEqual([]);
    expect(findings(withScraperPods(undefined, sending, namespace, am, service, deny, letIn(9094)))).toEqual([
      [
        'fail',
        expect.stringMatching(/^Prometheus monitoring\/k8s sends its alerts to port web behind Service alerts\/alertmanager, to the pods of Alertmanager main/),
      ],
    ]);
  });

  it("judges the rendered Prometheus' own egress: one finding for a blanket deny, at the policy, an address block among them", () => {
    const egress = (name: string, spec: Record<string, unknown>) =>
      make(name.startsWith('cilium') ? 'CiliumNetworkPolicy' : 'NetworkPolicy', name, 'monitoring', { spec });
    const denyAll = egress('deny-egress', { podSelector: {}, policyTypes: ['Egress'] });
    const result = runPolicy(withScraperPods(undefined, prometheus(), denyAll), [scrapePathCheck]);
    expect(result.map((f) => [f.severity ?? 'fail', f.message])).toEqual([
      [
        'fail',
        expect.stringMatching(
          /^NetworkPolicy deny-egress isolates the egress of Prometheus monitoring\/k8s's pods in monitoring and lets none of the \d+ paths it takes out \(the first: ServiceMonitor .*\): every scrape times out and every target is down$/,
        ),
      ],
    ]);
    // One path shut of several: the finding is at that path, and says which.
    const allowMost = egress('most', {
      podSelector: {},
      policyTypes: ['Egress'],
      egress: [{ to: [{ namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['portfolio'] }] } }] }],
    });
    expect(findings(withScraperPods(undefined, prometheus(), allowMost))).toEqual([
      [
        'fail',
        expect.stringMatching(
          /^ServiceMonitor portfolio\/portfolio-api scrapes port metrics behind Service portfolio\/portfolio-api, to the pods of Deployment portfolio-api, but the egress policies that select the Prometheus' pods in monitoring \(NetworkPolicy most\) let it reach none of them on that port: the scrape times out, and the target is down$/,
        ),
      ],
    ]);
    // Unrendered, its pods are unknown; a policy for other pods, or Cilium's cluster entity, lets it out.
    expect(findings(withScraperPods(undefined, denyAll))).toEqual([]);
    expect(
      findings(withScraperPods(undefined, prometheus(), egress('grafana-only', { podSelector: { matchLabels: { app: 'grafana' } }, policyTypes: ['Egress'] }))),
    ).toEqual([]);
    const cluster = egress('cilium-out', { endpointSelector: {}, egress: [{ toEntities: ['cluster'] }] });
    expect(findings(withScraperPods(undefined, prometheus(), cluster))).toEqual([]);
    const block = egress('by-address', { podSelector: {}, policyTypes: ['Egress'], egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8' } }] }] });
    // An address block selects no pod, even one the gate does not see the labels of.
    expect(findings(withScraperPods(undefined, prometheus(), block))).toEqual([
      [
        'fail',
        expect.stringMatching(
          /^NetworkPolicy by-address isolates the egress of Prometheus monitoring\/k8s's pods in monitoring and lets none of the \d+ paths it takes out .*\(an address block selects no pod: Cilium gives a pod's address its endpoint's identity\)$/,
        ),
      ],
    ]);
  });

  it("reaches a pod on the node's network by the node's identity only, and holds no such pod to the policies that select pods", () => {
    const egress = (name: string, spec: Record<string, unknown>) =>
      make(name.startsWith('cilium') ? 'CiliumNetworkPolicy' : 'NetworkPolicy', name, 'monitoring', { spec });
    // Every namespace's pods are let out to: the API's pods on the node's network are none of them.
    const allPods = egress('all-pods', { podSelector: {}, policyTypes: ['Egress'], egress: [{ to: [{ namespaceSelector: {} }] }] });
    expect(findings(withScraperPods(undefined, prometheus(), allPods))).toEqual([]);
    expect(findings(apiOnHostNetwork(withScraperPods(undefined, prometheus(), allPods)))).toEqual([
      [
        'fail',
        expect.stringMatching(
          /^ServiceMonitor portfolio\/portfolio-api scrapes port metrics .* let it reach none of them on that port \(its pods are on the node's network, with the node's identity: only a rule to every destination, Cilium's host and remote-node entities, or an address block of every node where Cilium selects nodes by address, reaches them\)/,
        ),
      ],
    ]);
    const nodes = (entities: string[]) => egress('cilium-nodes', { endpointSelector: {}, egress: [{ toEntities: entities }] });
    expect(findings(apiOnHostNetwork(withScraperPods(undefined, prometheus(), allPods, nodes(['host', 'remote-node']))))).toEqual([]);
    expect(findings(apiOnHostNetwork(withScraperPods(undefined, prometheus(), allPods, nodes(['host']))))).toEqual([
      ['not-judged', expect.stringMatching(/is not known, as .* one node entity alone/)],
    ]);
    // By address: a block of every node of the cluster facts reaches it (the repository's Cilium selects nodes by CIDR);
    // the workers alone, not judged (where its pods run decides); the pods' network, never.
    const byBlock = (cidr: string) => egress('by-block', { podSelector: {}, policyTypes: ['Egress'], egress: [{ to: [{ ipBlock: { cidr } }] }] });
    expect(findings(apiOnHostNetwork(withScraperPods(undefined, prometheus(), allPods, byBlock('192.168.1.0/24'))))).toEqual([]);
    expect(findings(apiOnHostNetwork(withScraperPods(undefined, prometheus(), allPods, byBlock('192.168.1.16/28'))))).toEqual([
      ['not-judged', expect.stringMatching(/is not known/)],
    ]);
    expect(findings(apiOnHostNetwork(withScraperPods(undefined, prometheus(), allPods, byBlock('10.244.0.0/16'))))).toEqual([
      ['fail', expect.stringMatching(/its pods are on the node's network/)],
    ]);
    // Its own namespace's ingress policies select pods by label, and a pod on the node's network is no such endpoint.
    expect(findings(withScraperPods({ app: 'prometheus' }, prometheus()))).toHaveLength(1);
    expect(findings(apiOnHostNetwork(withScraperPods({ app: 'prometheus' }, prometheus())))).toEqual([]);
  });

  it("judges a CiliumNetworkPolicy's ingress rules with the NetworkPolicies: one that lets the cluster in admits Prometheus", () => {
    const cilium = (rule: Record<string, unknown>) =>
      make('CiliumNetworkPolicy', 'api-in', 'portfolio', {
        spec: { endpointSelector: { matchLabels: { 'app.kubernetes.io/name': 'portfolio-api' } }, ingress: [rule] },
      });
    // The API's own NetworkPolicy, narrowed to pods Prometheus' are not: only the Cilium rule can let it in.
    expect(findings(withScraperPods({ app: 'prometheus' }, prometheus(), cilium({ fromEntities: ['cluster'] })))).toEqual([]);
    expect(findings(withScraperPods({ app: 'prometheus' }, prometheus(), cilium({ fromEntities: ['world'] })))).toEqual([
      [
        'fail',
        expect.stringMatching(
          /to the pods of Deployment portfolio-api, which NetworkPolicy default-deny, NetworkPolicy portfolio-api, CiliumNetworkPolicy api-in isolate them in portfolio with no ingress rule that lets Prometheus in/,
        ),
      ],
    ]);
    expect(findings(withScraperPods({ app: 'prometheus' }, prometheus(), cilium({ fromCIDR: ['10.0.0.0/8'] })))).toEqual([
      [
        'fail',
        expect.stringMatching(
          /CiliumNetworkPolicy api-in isolate them in portfolio with no ingress rule that lets Prometheus in from namespace monitoring on that port \(an address block selects no pod/,
        ),
      ],
    ]);
  });
});

describe('network-policy-selects', () => {
  it("counts no pod on the node's network: a policy that selects only such pods guards nothing", () => {
    const selects = networkPolicyChecks.filter((c) => c.id === 'network-policy-selects');
    // Judged without the gate's render record, the unrendered charts' namespaces are judged too: only the difference counts.
    const before = findings(repo, selects);
    const after = findings(apiOnHostNetwork(repo), selects);
    // The API's CiliumNetworkPolicy for its egress selects the same pods, which Cilium gives no endpoint either.
    expect(after.filter((f) => !before.some((b) => b[1] === f[1]))).toEqual([
      ['fail', 'NetworkPolicy portfolio-api selects no pod in namespace portfolio: it guards nothing'],
      [
        'fail',
        "CiliumNetworkPolicy portfolio-api-egress selects no pod in namespace portfolio (its endpointSelector, as Cilium reads a pod's labels): what it allows reaches no pod, and the pods it was written for keep only what the namespace's other policies allow",
      ],
    ]);
    expect(after).toHaveLength(before.length + 2);
  });
});

describe('network-policy-peers', () => {
  it('knows the pods the operator makes for a Prometheus: a rule naming them allows something', () => {
    const peers = networkPolicyChecks.filter((c) => c.id === 'network-policy-peers');
    expect(findings(withScraperPods({ 'app.kubernetes.io/name': 'prometheus' }, prometheus()), peers)).toEqual([]);
    expect(findings(withScraperPods({ app: 'prometheus' }, prometheus()), peers)).toEqual([
      ['fail', expect.stringMatching(/allows traffic with pods matching \{"matchLabels":\{"app":"prometheus"\}\} in monitoring, and no pod there matches/)],
    ]);
  });
});
