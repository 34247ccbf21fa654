/**
 * network-policy-scrape-path: where a NetworkPolicy or a Cilium policy isolates the pods a Prometheus scrapes (the pods behind each
 * Service a ServiceMonitor it loads selects, and each pod a PodMonitor it loads selects) or sends its alerts to (the
 * Alertmanagers its alerting lists), one of its ingress rules lets that Prometheus in on the port: its namespace
 * always, its pods (the labels the operator gives them) where it is rendered. Otherwise the scrape times out, the
 * target is down, and its series are gone; or no alert reaches Alertmanager. Both kinds are read together, as Cilium
 * enforces them (model/cilium/ingress.ts); a peer by address is said not judged. And the other end: where the policies that select the rendered Prometheus'
 * pods isolate their egress (a default-deny in its namespace), some egress rule lets it out to each of those pods on
 * the port, as Cilium enforces NetworkPolicy and CiliumNetworkPolicy together (model/cilium/egress.ts).
 */
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { dig, obj, objects, type Obj } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { Path } from '../../model/core/positions.ts';
import { scalarText } from '../../model/core/text.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import type { Repo } from '../../model/repository/repo.ts';
import { podsBySelector, type Template } from '../../model/cluster/pod-templates.ts';
import { namedPortTarget, podsBehind } from '../../model/prometheus-operator/scrape-targets.ts';
import { ADDRESS_CHARTS, peerFacts, type PeerFacts } from '../../model/cilium/node-addresses.ts';
import { addressNote, policyNames, selectorAt } from './refusals.ts';
import { operatorPodLabels, operatorPodsSelected } from '../../model/cluster/providers.ts';
import {
  ENFORCED_POLICY_KINDS,
  nodeNetworkClient,
  placedPolicies,
  reachesPod,
  type Client,
  type Placed,
  type PodPorts,
} from '../../model/cluster/network-reach.ts';
import { egressVerdict, onNodeNetwork, type EgressVerdict, podTarget } from '../../model/cilium/egress.ts';
import { ingressVerdict } from '../../model/cilium/ingress.ts';
import { refusedOutright } from '../../model/cilium/policy-rules.ts';
import { notLoadedBecause, prometheusViews, selectable, type PrometheusView } from '../../model/prometheus-operator/selection.ts';
import { alertmanagerTarget, monitorNamespaces } from '../../model/prometheus-operator/discovery.ts';
import { serviceIndex, type ServiceIndex } from '../../model/cluster/service-addresses.ts';

/** One path Prometheus takes to a pod port: what names it, and where. */
interface Path_ {
  what: string;
  at: { resource: Resource; path: Path };
  pods: (PodPorts & { resource: Resource })[];
  port: string;
  /** The Service it goes through (a CiliumNetworkPolicy's toServices names it); none for a PodMonitor's. */
  service?: { namespace: string; name: string };
  /** What is lost where the path is shut. */
  lost?: string;
}

/** The Prometheus as a client, and whether its pods run on the node's network (then no policy holds their egress). */
type PrometheusClient = Client & { hostNetwork: boolean };

/**
 * The Prometheus as a client: its namespace, and the labels of the pods the operator makes for it where it is rendered;
 * on the node's network (spec.hostNetwork) of a cluster of several nodes, it arrives at a pod as its node.
 */
function clientOf(view: PrometheusView, repo: Pick<Repo, 'facts'>): PrometheusClient {
  const labels = view.resource && operatorPodLabels(view.resource);
  const hostNetwork = view.spec.hostNetwork === true;
  return { namespace: view.namespace, pods: labels ? [labels] : undefined, hostNetwork, ...nodeNetworkClient(repo, hostNetwork) };
}

/** The namespaces a monitor reads, as the operator writes its discovery (monitorNamespaces); undefined for every one. */
function namespacesOf(monitor: Resource, own: string, scope: Scope): string[] | undefined {
  const names = monitorNamespaces(dig(monitor.object, ['spec', 'namespaceSelector']), own, scope.ignoreSelectors);
  return names.includes('') ? undefined : names;
}

/** What every path is judged in, read once per run: the pods, the Services by namespace, and the policies. */
interface Scope {
  /** The pod templates a selector matches, and the Services by namespace and those a selector matches (indexed once). */
  pods: (selector: Obj) => Template[];
  services: ServiceIndex;
  /** Every NetworkPolicy and Cilium policy, each with its namespace: the targets' ingress and the Prometheus' egress. */
  policies: Placed[];
  /** The namespaces' labels and the nodes' addresses the policies' peers are judged against. */
  peers: PeerFacts;
  /** The Prometheus' ignoreNamespaceSelectors: each monitor reads its own namespace alone. */
  ignoreSelectors: boolean;
}

function serviceMonitorPaths(monitor: Resource, own: string, scope: Scope): Path_[] {
  const namespaces = namespacesOf(monitor, own, scope);
  const services = scope.services
    .matching(obj(dig(monitor.object, ['spec', 'selector'])))
    .map((s) => ({ s, ns: s.namespace ?? '' }))
    .filter(({ ns }) => !namespaces || namespaces.includes(ns));
  return objects(dig(monitor.object, ['spec', 'endpoints'])).flatMap((e, i) =>
    services.flatMap(({ s, ns }) => {
      const named = typeof e.port === 'string' ? namedPortTarget(s, e.port) : undefined;
      const port = named ?? (e.targetPort !== undefined ? scalarText(e.targetPort) : undefined);
      const field = named ? 'port' : 'targetPort';
      if (port === undefined) return [];
      const what = `ServiceMonitor ${own}/${monitor.name} scrapes port ${port} behind Service ${ns}/${s.name}`;
      return [
        {
          what,
          at: { resource: monitor, path: ['spec', 'endpoints', i, field] },
          pods: podsBehind(s, ns, scope.pods),
          port,
          service: { namespace: ns, name: s.name },
        },
      ];
    }),
  );
}

function podMonitorPaths(monitor: Resource, own: string, scope: Scope): Path_[] {
  const namespaces = namespacesOf(monitor, own, scope);
  const pods = scope.pods(obj(dig(monitor.object, ['spec', 'selector']))).filter((t) => !namespaces || namespaces.includes(t.namespace));
  return objects(dig(monitor.object, ['spec', 'podMetricsEndpoints'])).flatMap((e, i) => {
    const field = ['port', 'portNumber', 'targetPort'].find((f) => e[f] !== undefined);
    if (!field) return [];
    const port = scalarText(e[field]);
    return [
      {
        what: `PodMonitor ${own}/${monitor.name} scrapes port ${port}`,
        at: { resource: monitor, path: ['spec', 'podMetricsEndpoints', i, field] },
        pods,
        port,
      },
    ];
  });
}

/** The pods the operator makes for each Alertmanager a Service selects, with the web port it names (statefulset.go: spec.portName, `web` where unset, on 9093). */
const alertmanagerPods = (ctx: CheckContext, service: Resource, namespace: string): Path_['pods'] =>
  operatorPodsSelected(
    ctx.repo,
    ctx.resources.filter((r) => r.kind === 'Alertmanager'),
    { namespace, selector: obj(dig(service.object, ['spec', 'selector'])) },
  );

/** Each Alertmanager the rendered Prometheus sends to, through its Service (its values-built entries are the chart's own). */
function alertingPaths(ctx: CheckContext, view: PrometheusView, scope: Scope): Path_[] {
  if (!view.resource) return [];
  return objects(dig(view.spec, ['alerting', 'alertmanagers'])).flatMap((entry, i) => {
    const target = alertmanagerTarget(entry, view.namespace, view.spec);
    const ns = target.discovery.namespaces[0]!;
    const service = scope.services.named(ns, target.service);
    // A port name is the Service's port, sent to its target; a number is the pods' container port itself.
    const port = service && target.port ? ('name' in target.port ? namedPortTarget(service, target.port.name) : String(target.port.containerPort)) : undefined;
    if (!service || port === undefined) return []; // alerts-reach-alertmanager says so
    const what = `${view.from} sends its alerts to port ${port} behind Service ${ns}/${service.name}`;
    const pods = [...podsBehind(service, ns, scope.pods), ...alertmanagerPods(ctx, service, ns)];
    const at = { resource: view.resource!, path: ['spec', 'alerting', 'alertmanagers', i, 'port'] };
    return [{ what, at, pods, port, service: { namespace: ns, name: service.name }, lost: 'no alert reaches Alertmanager' }];
  });
}

/** The policies that shut a path, for a message: `NetworkPolicy a isolates`, `NetworkPolicies a and b isolate`, or each kind named. */
function isolators(policies: readonly Resource[]): string {
  if (policies.every((p) => p.kind === 'NetworkPolicy'))
    return policies.length > 1 ? `NetworkPolicies ${policies.map((p) => p.name).join(' and ')} isolate` : `NetworkPolicy ${policies[0]!.name} isolates`;
  return `${policyNames(policies)} isolate${policies.length > 1 ? '' : 's'}`;
}

function judgePath(ctx: CheckContext, path: Path_, client: Client, scope: Scope): void {
  for (const pod of path.pods.filter((p) => reachesPod(p, path.port))) {
    const verdict = ingressVerdict(scope.policies, { pod, port: path.port }, client, scope.peers);
    if ('allowed' in verdict) continue;
    if ('unknown' in verdict)
      return ctx.notJudged(
        path.at,
        `${path.what}: whether ${pod.resource.kind} ${pod.resource.name}'s ingress policies let Prometheus in is not known, as ${verdict.unknown} selects its pods`,
      );
    // A Cilium policy the agent refuses outright enforces nothing: network-policy-cilium-accepted says so.
    if (verdict.refusedBy.some(refusedOutright)) return;
    return ctx.fail(
      path.at,
      `${path.what}, to the pods of ${pod.resource.kind} ${pod.resource.name}, which ${isolators(verdict.refusedBy)} them in ${pod.namespace} with no ingress rule that lets Prometheus in from namespace ${client.namespace} on that port${client.onNodeNetwork ? '' : addressNote(verdict.refusedBy, { direction: 'from', target: podTarget(pod, path.port) }, 'pod')}: the connection times out, and the target is down`,
    );
  }
}

/** The first pod of a path the Prometheus' own egress policies keep it from, with the verdict. */
function egressOf(path: Path_, client: PrometheusClient, scope: Scope): { pod: Path_['pods'][number]; verdict: EgressVerdict } | undefined {
  for (const pod of path.pods.filter((p) => reachesPod(p, path.port)))
    for (const labels of client.pods ?? []) {
      const verdict = egressVerdict(
        scope.policies,
        { namespace: client.namespace, labels, named: new Map(), hostNetwork: client.hostNetwork },
        { pod, port: path.port, service: path.service ?? { namespace: pod.namespace, name: '' } },
        scope.peers,
      );
      if (!('allowed' in verdict)) return { pod, verdict };
    }
  return undefined;
}

/**
 * The other end: where the policies that select the Prometheus' pods isolate their egress, each path must be let out.
 * One finding for all the paths one set of policies shuts (a default-deny in its namespace is one mistake, not one per
 * target), at the first; a policy the gate cannot place pods in is said not judged, once. Judged where the Prometheus
 * is rendered: its pods' labels are the operator's.
 */
function judgeEgress(ctx: CheckContext, paths: readonly Path_[], client: PrometheusClient & { from: string }, scope: Scope): void {
  if (!client.pods) return;
  const shut = paths.flatMap((path) => {
    const found = egressOf(path, client, scope);
    return found ? [{ path, ...found }] : [];
  });
  const unknown = shut.find((s) => 'unknown' in s.verdict);
  if (unknown && 'unknown' in unknown.verdict)
    ctx.notJudged(
      unknown.path.at,
      `${unknown.path.what}: whether the Prometheus' egress policies let it out is not known, as ${unknown.verdict.unknown} selects its pods`,
    );
  const refused = shut.filter((s) => 'refusedBy' in s.verdict);
  const first = refused[0];
  if (!first || !('refusedBy' in first.verdict)) return;
  const policies = policyNames(first.verdict.refusedBy);
  const to = `${first.path.what}, to the pods of ${first.pod.resource.kind} ${first.pod.resource.name}`;
  // Every path shut is a blanket deny: the mistake is the policy, and the finding goes there; else the path.
  const reaching = paths.filter((path) => path.pods.some((pod) => reachesPod(pod, path.port)));
  if (refused.length === reaching.length && refused.length > 1) {
    const policy = first.verdict.refusedBy[0]!;
    const alerts = refused.some((r) => r.path.lost) ? ', and no alert reaches Alertmanager' : '';
    return ctx.fail(
      selectorAt(policy),
      `${policies} isolate${first.verdict.refusedBy.length > 1 ? '' : 's'} the egress of ${client.from}'s pods in ${client.namespace} and let${first.verdict.refusedBy.length > 1 ? '' : 's'} none of the ${refused.length} paths it takes out (the first: ${to}): every scrape times out and every target is down${alerts}${first.pod.hostNetwork ? '' : addressNote(first.verdict.refusedBy, { direction: 'to', target: podTarget(first.pod, first.path.port) }, 'pod')}`,
    );
  }
  const more = refused.length > 1 ? `; and ${refused.length - 1} more path${refused.length > 2 ? 's' : ''} it takes, shut the same way` : '';
  ctx.fail(
    first.path.at,
    `${to}, but the egress policies that select the Prometheus' pods in ${client.namespace} (${policies}) let it reach none of them on that port${first.pod.hostNetwork ? onNodeNetwork(first.pod) : addressNote(first.verdict.refusedBy, { direction: 'to', target: podTarget(first.pod, first.path.port) }, 'pod')}: ${first.path.lost ?? 'the scrape times out, and the target is down'}${more}`,
  );
}

export const scrapePathCheck: PolicyCheck = {
  id: 'network-policy-scrape-path',
  description:
    "Where a NetworkPolicy or a Cilium policy isolates the pods a Prometheus scrapes (behind each Service a ServiceMonitor it loads selects, or selected by a PodMonitor it loads) or the Alertmanager it sends its alerts to, one of its ingress rules lets that Prometheus in on the port (from its namespace, and its pods where it is rendered); and where the policies that select a rendered Prometheus' pods isolate their egress, some egress rule lets it out to each of those pods on the port (to pods on the node's network, which have the node's identity and which no policy that selects pods isolates, only a rule to every destination or Cilium's host and remote-node entities); otherwise the scrape times out and the target's series are gone, or no alert reaches Alertmanager (invariants A8, P1).",
  invariants: ['A8', 'P1'],
  remediation:
    "allow ingress from the Prometheus' namespace (kubernetes.io/metadata.name: monitoring) on the scraped port, in a policy that selects the target's pods; and where the Prometheus' egress is isolated, egress to the target's namespace and pods on that port",
  reads: {
    kinds: ['*'],
    everyKind: 'a scrape runs from a Prometheus through a monitor, a Service and the pods of any workload kind, past the policies and namespaces around them',
    charts: ['kube-prometheus-stack', ...ADDRESS_CHARTS],
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    const services = serviceIndex(ctx.repo, ctx.resources);
    const scope: Scope = {
      pods: podsBySelector(ctx.repo),
      services,
      policies: placedPolicies(ctx.repo, ctx.resources, ENFORCED_POLICY_KINDS),
      peers: peerFacts(ctx.repo),
      ignoreSelectors: false,
    };
    const { namespaces } = scope.peers;
    const monitors = ctx.resources.filter((r) => r.kind === 'ServiceMonitor' || r.kind === 'PodMonitor');
    for (const view of prometheusViews(ctx)) {
      const client = clientOf(view, ctx.repo);
      const loaded = monitors.filter((m) => notLoadedBecause(view, selectable(ctx, m), namespaces) === undefined);
      const inView = { ...scope, ignoreSelectors: view.spec.ignoreNamespaceSelectors === true };
      const paths = [
        ...loaded.flatMap((m) => {
          const own = namespaceOrDestination(ctx.repo, m) ?? '';
          return m.kind === 'ServiceMonitor' ? serviceMonitorPaths(m, own, inView) : podMonitorPaths(m, own, inView);
        }),
        ...alertingPaths(ctx, view, scope),
      ];
      for (const path of paths) judgePath(ctx, path, client, scope);
      judgeEgress(ctx, paths, { ...client, from: view.from }, scope);
    }
  },
};
