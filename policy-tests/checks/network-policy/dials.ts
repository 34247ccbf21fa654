/**
 * The in-cluster addresses the repository's pods dial, each resolved to the Service it names, the pod port it sends
 * to and the pods behind it: written in a workload's own object, in the settings the scripts push into an app, in a
 * ConfigMap a pod mounts or reads variables from, or in a datasource Grafana's sidecar loads into its pod. Read once
 * for the two ends of each connection: the client's egress (network-policy-egress-path) and the pods' ingress
 * (network-policy-dial-ingress).
 */
import { dig, obj, objects, type Obj } from '../../model/core/dig.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { selectorIndex } from '../../model/core/label-selector.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { scalarText } from '../../model/core/text.ts';
import type { CheckContext, FailurePlace, Reads } from '../../model/checks/kit.ts';
import { ADDRESS_CHARTS, peerFacts, type PeerFacts } from '../../model/cilium/node-addresses.ts';
import { templatesWithPorts, type Template } from '../../model/cluster/pod-templates.ts';
import { opaqueNamespaces, operatorPodsSelected, type OperatorPod } from '../../model/cluster/providers.ts';
import { serviceAddresses, serviceIndex, type ServiceAddress, type ServiceIndex } from '../../model/cluster/service-addresses.ts';
import { argoGlobMatch } from '../../model/core/glob.ts';
import { SETTINGS_FILES } from '../../model/apps/media-settings.ts';
import { podRefs } from '../../model/cluster/references.ts';
import { grafanaSidecars, whyNotLoaded, type Sidecar } from '../../model/grafana/sidecars.ts';
import { ENFORCED_POLICY_KINDS, placedPolicies, reachesPod, type Placed, type PodPorts } from '../../model/cluster/network-reach.ts';
import type { Repo } from '../../model/repository/repo.ts';

/** One dial: the pods that make it, the address, and where it is written. */
export interface Dial {
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
function configDials(
  ctx: CheckContext,
  templates: readonly Template[],
  { namespaces, sidecars }: { namespaces: ReadonlySet<string>; sidecars: readonly Sidecar[] },
): Dial[] {
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
  // A sidecar whose selection is not read loads objects not known: resolvedDials says so for each check.
  for (const s of sidecars.filter((x) => !x.unread)) {
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

/** A dial resolved: the Service it reaches, the pod port it sends to, and the pods behind it that serve that port. */
export interface ResolvedDial extends Dial {
  service: Resource;
  port: string;
  pods: (PodPorts & { resource: Resource })[];
}

/**
 * The dials of a view with the renders they were read with, read once for both checks that follow them (they read
 * the same view, with the same renders, in one run). Only the last renders are kept: a run passes one.
 */
const dialsOfView = new WeakMap<Repo, { renders: CheckContext['renders']; dials: ResolvedDial[]; unread: Sidecar[] }>();

/**
 * Every dial of the repository's pods (outside the namespaces a render leaves unseen) to a Service that exists with
 * the port it names and selects pods: a Service or port that is not there is closure-service's to say.
 */
export function resolvedDials(ctx: CheckContext): ResolvedDial[] {
  let kept = dialsOfView.get(ctx.repo);
  if (kept?.renders !== ctx.renders) {
    const sidecars = grafanaSidecars(ctx.repo, ctx.resources).filter((x) => x.what === 'datasources' && x.workload);
    kept = { renders: ctx.renders, dials: readDials(ctx, sidecars), unread: sidecars.filter((x) => x.unread) };
    dialsOfView.set(ctx.repo, kept);
  }
  for (const s of kept.unread)
    ctx.notJudged(
      { resource: s.workload!, path: [...s.at!, 'env'] },
      `the addresses in the datasources ${s.name} loads are not judged: its ${s.unread} is set from a value the gate does not read, so which objects it loads is not known`,
    );
  return kept.dials;
}

function readDials(ctx: CheckContext, sidecars: readonly Sidecar[]): ResolvedDial[] {
  const opaque = opaqueNamespaces(ctx.renders);
  const templates = templatesWithPorts(ctx.repo).filter((t) => !opaque.has(t.namespace));
  const namespaces = new Set(ctx.resources.flatMap((r) => (r.kind === 'Namespace' ? [r.name] : r.namespace ? [r.namespace] : [])));
  const services = serviceIndex(ctx.repo, ctx.resources);
  const pods = selectorIndex(templates, (t) => t.labels);
  const operatorPods = operatorPodsOf(ctx);
  return [...dials(ctx, templates, namespaces), ...configDials(ctx, templates, { namespaces, sidecars })].flatMap((dial) => {
    const reached = target(services, dial.address);
    if (!reached) return [];
    const selector = obj(dig(reached.service.object, ['spec', 'selector']));
    if (Object.keys(selector).length === 0) return [];
    const behind = [
      ...pods({ matchLabels: selector }).filter((t) => t.namespace === dial.address.namespace),
      ...operatorPods(dial.address.namespace, selector),
    ].filter((p) => reachesPod(p, reached.port));
    return [{ ...dial, ...reached, pods: behind }];
  });
}

/** What a finding on a dial starts with: who dials what, and which pods' port that is. */
export const dialText = (client: { resource: Resource }, dial: ResolvedDial): string =>
  `${client.resource.kind} ${client.resource.name} dials ${dial.address.text} (port ${dial.port} of the pods of ${dial.pods[0]!.resource.kind} ${dial.pods[0]!.resource.name})`;

/**
 * What a check that follows the dials reads: every kind (`everyKind` says why), the apps' settings, Cilium's values
 * (address peers) and the renders. The same for each such check, so they share one view and read the dials once.
 */
export const dialReads = (everyKind: string): Reads => ({ kinds: ['*'], everyKind, files: [SETTINGS_FILES], charts: ADDRESS_CHARTS, renders: true });

/** The policies Cilium enforces, each with its namespace, and what their peers are judged against. */
export interface DialScope {
  policies: Placed[];
  peers: PeerFacts;
}

/** Judges each dial of the view with `judge`, in the scope of the view's policies. */
export function judgeDials(ctx: CheckContext, judge: (ctx: CheckContext, dial: ResolvedDial, scope: DialScope) => void): void {
  const scope = dialScope(ctx);
  for (const dial of resolvedDials(ctx)) judge(ctx, dial, scope);
}

/** The view's policies Cilium enforces, with the namespaces and nodes their peers are judged against. */
export const dialScope = (ctx: CheckContext): DialScope => ({
  policies: placedPolicies(ctx.repo, ctx.resources, ENFORCED_POLICY_KINDS),
  peers: peerFacts(ctx.repo),
});
