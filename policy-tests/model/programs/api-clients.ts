/**
 * The programs the repository runs that call the API server, and what each asks: a container whose image's facts
 * list the command it runs (model/repository/image-facts.ts, each request read with the container's variables), a
 * k8s-sidecar (Grafana's dashboards and datasources, Loki's rules, read from its environment), kube-state-metrics
 * (its flags), a rendered Alloy (its configuration's components), and each rendered Prometheus (the Kubernetes
 * discoveries the operator writes for the monitors it loads and its Alertmanagers). One reading for every judge of
 * them: program-api-authorized holds each request to the RBAC its account is granted, and network-policy-api-egress
 * holds each caller's pods to the egress policies that must let them reach the API server.
 */
import type { CheckContext } from '../checks/kit.ts';
import type { Resource } from '../core/manifest.ts';
import { scalarText } from '../core/text.ts';
import { dig, objects } from '../core/dig.ts';
import { containerArgv, containersOf, imageParts, podSpecOf, type ContainerRef, type PodSpecRef } from '../core/workloads.ts';
import { namespaceOrDestination } from '../argocd/argocd.ts';
import { expandRequest, literalRequest, runsProgram, type ApiRequests, type ExpandedRequest } from '../apps/api-requests.ts';
import { imageKey, repoImageNeeds } from '../repository/image-facts.ts';
import { containerConnects, settingsCall, type SettingsCall } from './api-server-calls.ts';
import { containerEnvironment, expandedCommandLine } from '../cluster/environment.ts';
import { k8sSidecarRequests } from '../grafana/sidecars.ts';
import { alloyApiRequests } from '../alloy/kubernetes-requests.ts';
import { alloyHost } from '../alloy/host.ts';
import { isKubeStateMetrics, kubeStateMetricsRequests } from '../apps/kube-state-metrics.ts';
import { namespaceLabels } from '../cluster/pod-templates.ts';
import { notLoadedBecause, prometheusViews, selectable, SELECTED_KINDS, type PrometheusView } from '../prometheus-operator/selection.ts';
import { prometheusApiRequests, type LoadedMonitor } from '../prometheus-operator/discovery.ts';
import { bindingSubjectRefs, roleRefs } from '../cluster/references.ts';

/** Where client-go's in-cluster configuration reads the pod's token (rest.InClusterConfig), and the kubelet mounts it. */
const TOKEN_DIRECTORY = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Whether a container mounts, where the token is read, a projected volume that holds a ServiceAccount token: a chart's own mount of it. */
function mountsProjectedToken(pod: PodSpecRef): boolean {
  const tokenVolumes = new Set(
    objects(pod.spec.volumes)
      .filter((v) => objects(dig(v, ['projected', 'sources'])).some((s) => s.serviceAccountToken !== undefined))
      .map((v) => scalarText(v.name ?? '')),
  );
  return (
    tokenVolumes.size > 0 &&
    containersOf(pod).some((c) =>
      objects(c.container.volumeMounts).some(
        (m) => tokenVolumes.has(scalarText(m.name ?? '')) && scalarText(m.mountPath ?? '').replace(/\/+$/, '') === TOKEN_DIRECTORY,
      ),
    )
  );
}

/**
 * Whether the pod holds a token: its own automountServiceAccountToken, else its ServiceAccount's (true when neither
 * says); or, with both off, a projected token volume a container mounts where the token is read.
 */
export function mountsToken(pod: PodSpecRef, account: Resource | undefined): boolean {
  const own = pod.spec.automountServiceAccountToken;
  const automount = typeof own === 'boolean' ? own : account?.object.automountServiceAccountToken !== false;
  return automount || mountsProjectedToken(pod);
}

/** What the image facts say of each container of a pod and the API server: its binary connects, or its settings make it call, or not. */
function containerCalls(ctx: CheckContext, pod: PodSpecRef, namespace: string): { c: ContainerRef; connects: boolean; settings?: SettingsCall }[] {
  const { needs } = repoImageNeeds(ctx.repo);
  return containersOf(pod).map((c) => {
    const facts = needs.get(imageKey(scalarText(c.container.image ?? '')));
    const settings = settingsCall(facts, c.container, containerEnvironment(ctx, namespace, c.container, { secretText: true }).text);
    return { c, connects: containerConnects(facts, c.container), ...(settings ? { settings } : {}) };
  });
}

/**
 * The first container of a pod whose image's facts say its program connects to the API server (containerConnects: the
 * binary it starts trips Falco's rule for it, or its image callsApiServer; settingsCall: its settings turn the call
 * on): the evidence that the pod calls, with the settings that make it where those do.
 */
export function connectingContainer(ctx: CheckContext, pod: PodSpecRef, namespace: string): { c: ContainerRef; with?: string } | undefined {
  return connectionOf(containerCalls(ctx, pod, namespace));
}

/** The first container the facts say connects, of a pod's containers as containerCalls reads them. */
function connectionOf(calls: ReturnType<typeof containerCalls>): { c: ContainerRef; with?: string } | undefined {
  for (const { c, connects, settings } of calls) {
    if (connects) return { c };
    if (settings && 'calls' in settings && settings.calls) return { c, with: settings.because };
  }
  return undefined;
}

/** A program one container runs, and the requests it sends, each with its text as written or a variable it could not read. */
export interface Run {
  workload: Resource;
  pod: PodSpecRef;
  c: ContainerRef;
  /** What runs, for the message: `"backup etcd"`, `k8s-sidecar`. */
  program: string;
  /** A command of an API-calling image that its facts do not list: judged only where the pod holds a token. */
  unlisted?: boolean;
  /** `why` says why an unread request could not be read, where a variable does not. */
  requests: { text: string; expanded: ExpandedRequest; why?: string }[];
  /** Of a program the image facts describe, the data keys of the ConfigMaps or Secrets it writes, where they say. */
  dataKeys?: readonly string[];
  namespace: string;
  /** A run known only by the RBAC its account is granted (grantedRuns): the binding that grants it. */
  grantedBy?: Resource;
  /** Of such a run, the image of the pod that the facts say connects to the API server (and the settings that make it): then it calls. */
  connects?: string;
  /**
   * Of such a run with no image that connects: the facts say every container's settings leave the API server alone
   * (`none`), or what could not be read of them.
   */
  settings?: 'none' | { unread: string };
}

/** The programs a container's image's facts describe (apiRequests), whatever command the container runs. */
const imagePrograms = (ctx: CheckContext, at: Omit<Run, 'program' | 'requests'>): ApiRequests[] =>
  repoImageNeeds(ctx.repo).needs.get(imageKey(scalarText(at.c.container.image ?? '')))?.apiRequests ?? [];

/** One program of the facts as a container would run it: its requests read with the container's variables. */
function programRun(ctx: CheckContext, at: Omit<Run, 'program' | 'requests'>, p: ApiRequests): Run {
  return {
    ...at,
    program: JSON.stringify([...(p.command ?? []), ...(p.args ?? [])].join(' ')),
    ...(p.dataKeys ? { dataKeys: p.dataKeys } : {}),
    requests: p.requests.map((text) => ({
      text,
      expanded: expandRequest(text, containerEnvironment(ctx, at.namespace, at.c.container, { secretText: true }).text),
    })),
  };
}

/** The runs the image facts describe: each program a container runs, its requests read with the container's variables. */
function factRuns(ctx: CheckContext, at: Omit<Run, 'program' | 'requests'>): Run[] {
  const programs = imagePrograms(ctx, at);
  const ran = programs.filter((p) => runsProgram(p, at.c.container));
  // An image that calls the API server, run by a command its facts do not list: what it asks is not known.
  if (programs.length > 0 && ran.length === 0) {
    const why = "its command and args are none its image's facts list";
    return [
      {
        ...at,
        program: JSON.stringify(containerArgv(at.c.container).join(' ')),
        unlisted: true,
        requests: [{ text: 'what it asks', expanded: { unread: why }, why }],
      },
    ];
  }
  return ran.map((p) => programRun(ctx, at, p));
}

/** The run of a program the gate reads from its own container (k8s-sidecar's environment, kube-state-metrics' flags). */
function containerRuns(ctx: CheckContext, at: Omit<Run, 'program' | 'requests'>): Run[] {
  const environment = containerEnvironment(ctx, at.namespace, at.c.container, { secretText: true });
  const sidecar = k8sSidecarRequests(at.c.container, at.namespace, environment.text);
  const found = sidecar
    ? (['k8s-sidecar', sidecar] as const)
    : isKubeStateMetrics(at.c.container)
      ? ([
          'kube-state-metrics',
          kubeStateMetricsRequests(at.c.container, expandedCommandLine(containerEnvironment(ctx, at.namespace, at.c.container), at.c.container)),
        ] as const)
      : undefined;
  if (!found) return [];
  const [program, read] = found;
  // k8s-sidecar names the variable it could not read; kube-state-metrics says why in words.
  const requests =
    'unread' in read
      ? [{ text: 'its lists and watches', expanded: read, why: program === 'kube-state-metrics' ? read.unread : undefined }]
      : read.requests.map((text) => ({ text, expanded: literalRequest(text) }));
  return [{ ...at, program, requests }];
}

/** The configuration an Alloy pod loads: the `.alloy` key of a ConfigMap its chart rendered beside it. */
function alloyConfig(ctx: CheckContext, workload: Resource): string | undefined {
  const app = workload.rendered?.app;
  if (app === undefined) return undefined;
  for (const r of ctx.resources.filter((x) => x.kind === 'ConfigMap' && x.rendered?.app === app)) {
    const data = (r.object.data ?? {}) as Record<string, unknown>;
    const key = Object.keys(data).find((k) => k.endsWith('.alloy'));
    if (key !== undefined) return scalarText(data[key]);
  }
  return undefined;
}

/** An Alloy container's run: what its configuration's components ask the API server (model/alloy/kubernetes-requests.ts). */
function alloyRuns(ctx: CheckContext, at: Omit<Run, 'program' | 'requests'>): Run[] {
  if (!imageParts(scalarText(at.c.container.image ?? '')).name.endsWith('grafana/alloy')) return [];
  const text = alloyConfig(ctx, at.workload);
  if (text === undefined) return [];
  // Its arguments worked out with what the agent reads of its host: its environment as the kubelet sets it.
  const read = alloyApiRequests(text, at.namespace, alloyHost(ctx, at.workload, at.c.container));
  const requests = readRequests(read);
  return requests.length ? [{ ...at, program: "Alloy's configuration", requests }] : [];
}

/** Requests read from a program's own configuration, and those it may send that the gate could not read. */
const readRequests = (read: { requests: string[]; unread: string[] }): Run['requests'] => [
  ...read.requests.map((text) => ({ text, expanded: literalRequest(text) })),
  ...read.unread.map((what) => ({ text: what, expanded: { unread: what } as ExpandedRequest, why: 'its requests are not read' })),
];

/**
 * Each rendered Prometheus' discoveries (model/prometheus-operator/discovery.ts): the pod the operator makes runs as
 * the Prometheus' serviceAccountName and mounts its token unless the Prometheus says otherwise (statefulset.go).
 */
function prometheusRuns(ctx: CheckContext): Run[] {
  // Only a rendered Prometheus has the pod, the account and the RBAC its chart makes: the values alone say none of them.
  const rendered = prometheusViews(ctx).filter((view): view is PrometheusView & { resource: Resource } => view.resource !== undefined);
  if (rendered.length === 0) return [];
  const namespaces = namespaceLabels(ctx.repo);
  const monitors = ctx.resources.filter((r) => r.kind !== 'PrometheusRule' && SELECTED_KINDS[r.kind]).map((r) => [r, selectable(ctx, r)] as const);
  return rendered.flatMap((view) => {
    const loaded: LoadedMonitor[] = monitors
      .filter(([, s]) => notLoadedBecause(view, s, namespaces) === undefined)
      .map(([r, s]) => ({ kind: r.kind, name: r.name, namespace: s.namespace, spec: (dig(r.object, ['spec']) ?? {}) as Record<string, unknown> }));
    const requests = readRequests(prometheusApiRequests(view.spec, view.namespace, loaded));
    const pod: PodSpecRef = { spec: { ...view.spec, automountServiceAccountToken: view.spec.automountServiceAccountToken ?? true }, at: ['spec'] };
    const c: ContainerRef = { container: {}, name: 'prometheus', at: ['spec'], init: false };
    return requests.length ? [{ workload: view.resource, pod, c, program: 'its Kubernetes discovery', requests, namespace: view.namespace }] : [];
  });
}

/** The ServiceAccount a run's pod runs as: its name (`default` where unset), and its object where the view holds it. */
export function serviceAccountOf(ctx: CheckContext, run: Pick<Run, 'pod' | 'namespace'>): { name: string; resource?: Resource } {
  const name = scalarText(run.pod.spec.serviceAccountName ?? run.pod.spec.serviceAccount ?? 'default') || 'default';
  const resource = accountsOf(ctx.resources).get(`${run.namespace}/${name}`) ?? accountsOf(ctx.resources).get(`\0/${name}`);
  return { name, ...(resource ? { resource } : {}) };
}

/**
 * The view's ServiceAccounts by `namespace/name` (one written without a namespace under `\0/name`, taking the pod's),
 * the first written winning as the first applied holds the name; built once per view, as every pod is looked up.
 */
const accountIndexes = new WeakMap<readonly Resource[], Map<string, Resource>>();
function accountsOf(resources: readonly Resource[]): Map<string, Resource> {
  let index = accountIndexes.get(resources);
  if (!index) {
    index = new Map();
    for (const r of resources)
      if (r.kind === 'ServiceAccount' && !index.has(`${r.namespace ?? '\0'}/${r.name}`)) index.set(`${r.namespace ?? '\0'}/${r.name}`, r);
    accountIndexes.set(resources, index);
  }
  return index;
}

/** What `runsOf` finds in each container of each workload of the view, in their order. */
function perContainer(ctx: CheckContext, runsOf: (at: Omit<Run, 'program' | 'requests'>) => Run[]): Run[] {
  const runs: Run[] = [];
  for (const workload of ctx.resources) {
    const pod = podSpecOf(workload);
    if (!pod) continue;
    const namespace = namespaceOrDestination(ctx.repo, workload) ?? 'default';
    for (const c of containersOf(pod)) runs.push(...runsOf({ workload, pod, c, namespace }));
  }
  return runs;
}

/** Every program a workload of the view runs that calls the API server, container by container, and each rendered Prometheus. */
export function apiRuns(ctx: CheckContext): Run[] {
  const runs = perContainer(ctx, (at) => [...factRuns(ctx, at), ...containerRuns(ctx, at), ...alloyRuns(ctx, at)]);
  return [...runs, ...prometheusRuns(ctx)];
}

/**
 * The programs the image facts describe that each container runs (apiRequests): the ones its command and args run,
 * or, where they run none its facts list and its pod holds a token, every one of its image's: what the image's
 * programs write, for a reader of their writes. A command misspelt, or one that cannot start, is another check's
 * (workload-image-needs, kubelet-admits), not a reason to think the program writes nothing; a pod without a token
 * (the API's own server, on the writer's image) calls nothing.
 */
export const imageProgramRuns = (ctx: CheckContext): Run[] =>
  perContainer(ctx, (at) => {
    const programs = imagePrograms(ctx, at);
    const ran = programs.filter((p) => runsProgram(p, at.c.container));
    const unlisted = ran.length === 0 && programs.length > 0 && mountsToken(at.pod, serviceAccountOf(ctx, at).resource);
    return (unlisted ? programs : ran).map((p) => programRun(ctx, at, p));
  });

/**
 * The bindings that grant each ServiceAccount (`namespace/name`) a role that holds rules: a Role or ClusterRole of the
 * view with rules or an aggregationRule, or one the view does not hold (Kubernetes' own, or another source's, which
 * closure-role judges).
 */
function grantingBindings(ctx: CheckContext): Map<string, Resource> {
  const roles = new Map(roleRefs(ctx.repo, ctx.resources).map((ref) => [ref.resource, ref]));
  // Each Role and ClusterRole of the view by kind, namespace (a Role's) and name, the first written winning.
  const declared = new Map<string, Resource>();
  for (const r of ctx.resources) {
    if (r.kind !== 'Role' && r.kind !== 'ClusterRole') continue;
    const key = `${r.kind}/${r.kind === 'Role' ? (namespaceOrDestination(ctx.repo, r) ?? '') : ''}/${r.name}`;
    if (!declared.has(key)) declared.set(key, r);
  }
  const holdsRules = (binding: Resource): boolean => {
    const ref = roles.get(binding);
    if (!ref) return false;
    const role = declared.get(`${ref.kind}/${ref.kind === 'Role' ? ref.namespace : ''}/${ref.name}`);
    if (!role) return true;
    const rules = role.object.rules;
    return (Array.isArray(rules) && rules.length > 0) || role.object.aggregationRule !== undefined;
  };
  const granted = new Map<string, Resource>();
  for (const subject of bindingSubjectRefs(ctx.repo, ctx.resources)) {
    const key = `${subject.namespace}/${subject.name}`;
    if (!granted.has(key) && holdsRules(subject.resource)) granted.set(key, subject.resource);
  }
  return granted;
}

/**
 * What the facts say of a pod none of whose images connects: every container's settings leave the API server alone,
 * or the first that could not be read; nothing where a container's facts say nothing of its settings.
 */
function settingsOf(calls: ReturnType<typeof containerCalls>): Pick<Run, 'settings'> {
  const said = calls.map((x) => x.settings);
  // No container connects here (the caller asked connectingContainer first): a container's `calls` is false.
  if (said.every((s) => s !== undefined && 'calls' in s)) return { settings: 'none' };
  const unread = said.find((s) => s !== undefined && 'unread' in s);
  return unread && 'unread' in unread ? { settings: { unread: unread.unread } } : {};
}

/**
 * Each pod whose ServiceAccount a binding grants a role, one run per pod: an operator, a controller, a chart's hook
 * Job. What it asks is not read. That it calls the API server is known where an image of the pod connects to it, as
 * its facts say (the Falco rule it trips, callsApiServer, or a setting of apiServerWhen that its variables turn on);
 * that it calls nothing, where every container's facts say its settings turn no call on (falcosidekick's Role, for
 * outputs this repository does not use); otherwise it is only likely, for a chart may grant a role its program uses
 * only with some settings. network-policy-api-egress
 * holds these pods to their egress policies as it holds apiRuns'; program-api-authorized does not read them, for the
 * RBAC they are granted is all the gate knows of what they ask.
 */
export function grantedRuns(ctx: CheckContext): Run[] {
  const granted = grantingBindings(ctx);
  if (granted.size === 0) return [];
  const runs: Run[] = [];
  for (const workload of ctx.resources) {
    const pod = podSpecOf(workload);
    const c = pod && containersOf(pod).find((x) => !x.init);
    if (!pod || !c) continue;
    const namespace = namespaceOrDestination(ctx.repo, workload) ?? 'default';
    const account = serviceAccountOf(ctx, { pod, namespace });
    const grantedBy = granted.get(`${namespace}/${account.name}`);
    if (!grantedBy) continue;
    const why = `its ServiceAccount ${namespace}/${account.name} is granted a role by ${grantedBy.kind} ${grantedBy.name}, and what the program asks is not read`;
    const calls = containerCalls(ctx, pod, namespace);
    const connecting = connectionOf(calls);
    runs.push({
      workload,
      pod,
      c,
      namespace,
      grantedBy,
      ...(connecting
        ? { connects: `${scalarText(connecting.c.container.image ?? '')}${connecting.with ? ` (with ${connecting.with})` : ''}` }
        : settingsOf(calls)),
      program: `as ServiceAccount ${namespace}/${account.name}`,
      requests: [{ text: 'what its RBAC grants', expanded: { unread: why }, why }],
    });
  }
  return runs;
}
