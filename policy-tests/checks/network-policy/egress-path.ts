/**
 * network-policy-egress-path: where the policies that select a pod isolate its egress, each in-cluster address it
 * dials (written in its workload, in the settings the scripts push into its app, in a ConfigMap its pod mounts or
 * reads variables from, or in a datasource Grafana's sidecar loads into its pod) reaches the pods behind that
 * Service (the repository's, or those the operator makes for a Prometheus or an Alertmanager) on the port the address names, by some egress rule (model/cilium/egress.ts: NetworkPolicy and
 * CiliumNetworkPolicy as Cilium enforces both). Otherwise the app's calls time out: the torrent client never gets a
 * download, Prowlarr never reaches a manager, with every object accepted. A rule whose peer the gate cannot place (an
 * address block, a group, a deny rule) is said not judged. DNS, the destination's own ingress policies
 * (network-policy-default-deny) and addresses with no port the gate can read are not judged here.
 */
import { dig, obj, objects, type Obj } from '../../model/core/dig.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { selectorIndex } from '../../model/core/label-selector.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { scalarText } from '../../model/core/text.ts';
import type { CheckContext, FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';
import { templatesWithPorts, type Template } from '../../model/cluster/pod-templates.ts';
import { addressNote, peerFacts, type PeerFacts } from '../../model/cilium/node-addresses.ts';
import { opaqueNamespaces, operatorPodsSelected, type OperatorPod } from '../../model/cluster/providers.ts';
import { serviceAddresses, serviceIndex, type ServiceAddress, type ServiceIndex } from '../../model/cluster/service-addresses.ts';
import { argoGlobMatch } from '../../model/core/glob.ts';
import { SETTINGS_FILES } from '../../model/apps/media-settings.ts';
import { egressVerdict, onNodeNetwork } from '../../model/cilium/egress.ts';
import { podRefs } from '../../model/cluster/references.ts';
import { grafanaSidecars, whyNotLoaded } from '../../model/grafana/sidecars.ts';
import { ENFORCED_POLICY_KINDS, placedPolicies, reachesPod, type Placed, type PodPorts } from '../../model/cluster/network-reach.ts';

/** One dial: the pods that make it, the address, and where it is written. */
interface Dial {
  clients: Template[];
  address: ServiceAddress;
  at: FailurePlace;
}

/** The addresses each pod template's own object names, and those of the settings its app folder holds. */
function dials(ctx: CheckContext, templates: readonly Template[], namespaces: ReadonlySet<string>): Dial[] {
  const out: Dial[] = [];
  for (const t of templates)
    for (const address of serviceAddresses(t.resource.object, namespaces))
      out.push({ clients: [t], address, at: { resource: t.resource, path: address.path } });
  for (const data of ctx.repo.dataFiles.values()) {
    if (!argoGlobMatch(SETTINGS_FILES, data.file)) continue;
    const folder = data.file.slice(0, data.file.indexOf('/settings/') + 1);
    const clients = templates.filter((t) => !t.resource.rendered && t.resource.file.startsWith(folder));
    for (const address of serviceAddresses(data.data, namespaces)) out.push({ clients, address, at: { data, path: address.path } });
  }
  return out;
}

/**
 * The addresses written in the files a pod reads: each ConfigMap it mounts or reads variables from, and the
 * datasources Grafana's sidecar loads into the pod that runs it (model/grafana/sidecars.ts), each address once, with
 * every pod that reads it. Said where it is written: the ConfigMap's key.
 */
function configDials(ctx: CheckContext, templates: readonly Template[], namespaces: ReadonlySet<string>): Dial[] {
  const readers = new Map<Resource, Template[]>();
  const configMaps = new Map(
    ctx.resources.filter((r) => r.kind === 'ConfigMap').map((r) => [`${namespaceOrDestination(ctx.repo, r) ?? ''}/${r.name}`, r] as const),
  );
  // The ConfigMaps each pod mounts (projected too) or takes variables from, as closure reads a pod's references.
  const byWorkload = Map.groupBy(templates, (t) => t.resource);
  for (const ref of podRefs(ctx.repo, [...byWorkload.keys()]).filter((r) => r.kind === 'ConfigMap')) {
    const cm = configMaps.get(`${ref.namespace ?? ''}/${ref.name}`);
    if (cm) readers.set(cm, [...new Set([...(readers.get(cm) ?? []), ...byWorkload.get(ref.resource)!])]);
  }
  for (const s of grafanaSidecars(ctx.repo, ctx.resources).filter((x) => x.what === 'datasources' && x.workload)) {
    const pods = templates.filter((t) => t.resource === s.workload);
    for (const r of ctx.resources.filter((x) => x.kind === 'ConfigMap' || x.kind === 'Secret'))
      if (whyNotLoaded(r, namespaceOrDestination(ctx.repo, r) ?? '', s) === undefined) readers.set(r, [...(readers.get(r) ?? []), ...pods]);
  }
  return [...readers].flatMap(([r, clients]) =>
    serviceAddresses(r.object, namespaces)
      // A ConfigMap's text; a Secret's only where written as text (stringData), never its encoded data.
      .filter((a) => a.path[0] === 'stringData' || (a.path[0] === 'data' && r.kind === 'ConfigMap'))
      .map((address) => ({ clients, address, at: { resource: r, path: address.path } })),
  );
}

/** The pods the operator makes for the Prometheuses and Alertmanagers a Service's selector selects, with their web port. */
const operatorPodsOf =
  (ctx: CheckContext) =>
  (namespace: string, selector: Obj): OperatorPod[] =>
    operatorPodsSelected(
      ctx.repo,
      ctx.resources.filter((r) => r.kind === 'Prometheus' || r.kind === 'Alertmanager'),
      { namespace, selector },
    );

/** The Service a dial reaches and the pod port it sends to: the Service port the address names, or its one port. */
function target(services: ServiceIndex, address: ServiceAddress): { service: Resource; port: string } | undefined {
  const service = services.named(address.namespace, address.service);
  const ports = objects(dig(service?.object, ['spec', 'ports']));
  const port = address.port === undefined ? (ports.length === 1 ? ports[0] : undefined) : ports.find((p) => Number(p.port) === address.port);
  return service && port ? { service, port: scalarText(port.targetPort ?? port.port) } : undefined;
}

function judgeDial(
  ctx: CheckContext,
  dial: Dial,
  env: {
    pods: (selector: Obj) => Template[];
    operatorPods: (namespace: string, selector: Obj) => OperatorPod[];
    services: ServiceIndex;
    policies: Placed[];
    peers: PeerFacts;
  },
): void {
  const reached = target(env.services, dial.address);
  if (!reached) return; // no such Service or port: closure-service says so
  const selector = obj(dig(reached.service.object, ['spec', 'selector']));
  if (Object.keys(selector).length === 0) return;
  const pods: (PodPorts & { resource: Resource })[] = [
    ...env.pods({ matchLabels: selector }).filter((t) => t.namespace === dial.address.namespace),
    ...env.operatorPods(dial.address.namespace, selector),
  ].filter((p) => reachesPod(p, reached.port));
  for (const client of dial.clients) {
    if (pods.some((p) => p === client)) continue; // its own address, which it hands to others
    const verdicts = pods.map((pod) =>
      egressVerdict(env.policies, client, { pod, port: reached.port, service: { namespace: dial.address.namespace, name: reached.service.name } }, env.peers),
    );
    if (verdicts.length === 0 || verdicts.some((v) => 'allowed' in v)) continue;
    const dials = `${client.resource.kind} ${client.resource.name} dials ${dial.address.text} (port ${reached.port} of the pods of ${pods[0]!.resource.kind} ${pods[0]!.resource.name})`;
    const unknown = verdicts.find((v) => 'unknown' in v);
    if (unknown && 'unknown' in unknown) {
      ctx.notJudged(dial.at, `${dials}: whether its egress policies let it is not known, as ${unknown.unknown} selects it`);
      continue;
    }
    const refused = verdicts[0] && 'refusedBy' in verdicts[0] ? verdicts[0].refusedBy : [];
    ctx.fail(
      dial.at,
      `${dials}, and the egress policies that select its pods in ${client.namespace} (${refused.map((p) => `${p.kind} ${p.name}`).join(', ')}) let it reach none of them on that port${pods[0]!.hostNetwork ? onNodeNetwork(pods[0]!) : addressNote(refused, 'to', 'pod')}: the connection times out`,
    );
  }
}

export const egressPathCheck: PolicyCheck = {
  id: 'network-policy-egress-path',
  description:
    "Where the NetworkPolicies and CiliumNetworkPolicies that select a pod isolate its egress, every in-cluster address it dials (in its workload's object, in the settings its app folder pushes into the app, in a ConfigMap its pod mounts or reads variables from, or in a datasource Grafana's sidecar loads into it) reaches the pods behind that Service on the port the address names by some egress rule, as Cilium enforces both kinds (pods on the node's network have the node's identity: only a rule to every destination, the host and remote-node entities, or an address block of every node under a Cilium that selects nodes by address (policyCIDRMatchMode: [nodes]), reaches them, and no policy holds their own egress; an address block reaches no pod); otherwise the app's calls time out with every object accepted (invariants P1).",
  invariants: ['P1'],
  remediation:
    "add an egress rule to the caller's namespace policy that allows the callee's namespace and pods on the Service's targetPort (a NetworkPolicy `to`, or a CiliumNetworkPolicy's toEndpoints with k8s:io.kubernetes.pod.namespace)",
  reads: {
    kinds: ['*'],
    everyKind: 'a dial starts in a pod of any workload kind and ends behind a Service, past the policies and namespaces around both',
    files: [SETTINGS_FILES],
    // Cilium's: whether its agents select nodes by address (node-addresses.ts).
    charts: ['cilium'],
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    const opaque = opaqueNamespaces(ctx.renders);
    const templates = templatesWithPorts(ctx.repo).filter((t) => !opaque.has(t.namespace));
    const namespaces = new Set(ctx.resources.flatMap((r) => (r.kind === 'Namespace' ? [r.name] : r.namespace ? [r.namespace] : [])));
    const policies = placedPolicies(ctx.repo, ctx.resources, ENFORCED_POLICY_KINDS);
    const services = serviceIndex(ctx.repo, ctx.resources);
    const env = { pods: selectorIndex(templates, (t) => t.labels), operatorPods: operatorPodsOf(ctx), services, policies, peers: peerFacts(ctx.repo) };
    for (const dial of [...dials(ctx, templates, namespaces), ...configDials(ctx, templates, namespaces)]) judgeDial(ctx, dial, env);
  },
};
