/**
 * What the API server answers a program the repository runs: the requests its image's facts say it sends
 * (model/apps/api-requests.ts), each read as RequestInfo reads a path (authorization/request-info.ts) and
 * authorized as its pod's ServiceAccount by the RBAC the repository grants (authorization/rbac.ts). A refusal is the
 * program's 403 at run time: the backup's sentinel never written, the status page never updated. Nothing else refuses
 * it first: the API server stores a Role whatever its rules say, and a binding to it. The charts' k8s-sidecar
 * containers (Grafana's dashboards and datasources, Loki's rules) are read from their own environment
 * (model/grafana/sidecars.ts): a chart's RBAC made namespaced while its sidecar reads every namespace loads nothing.
 * A rendered Alloy is judged by its configuration (model/alloy/kubernetes-requests.ts): its discoveries, its events
 * source and its pod tailer list, watch and get what their arguments say. A rendered Prometheus runs the Kubernetes
 * discoveries the operator writes for the monitors it loads and for its Alertmanagers
 * (model/prometheus-operator/discovery.ts), as the account its serviceAccountName names: a ClusterRole narrowed to a
 * Role, or a monitor reading a namespace the account may not, and its targets are never found, with nothing red.
 */
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { scalarText } from '../../model/core/text.ts';
import { dig } from '../../model/core/dig.ts';
import {
  containerArgv,
  containerEnv,
  containersOf,
  imageParts,
  podSpecOf,
  WORKLOAD_KINDS,
  type ContainerRef,
  type PodSpecRef,
} from '../../model/core/workloads.ts';
import { expandRequest, literalRequest, runsProgram, type ApiRequests, type ExpandedRequest } from '../../model/apps/api-requests.ts';
import { IMAGE_FACTS_GLOB, imageKey, repoImageNeeds } from '../../model/repository/image-facts.ts';
import { k8sSidecarRequests } from '../../model/grafana/sidecars.ts';
import { alloyApiRequests } from '../../model/alloy/kubernetes-requests.ts';
import { isKubeStateMetrics, kubeStateMetricsRequests } from '../../model/apps/kube-state-metrics.ts';
import { namespaceLabels } from '../../model/cluster/pod-templates.ts';
import { notLoadedBecause, prometheusViews, selectable, SELECTED_KINDS, type PrometheusView } from '../../model/prometheus-operator/selection.ts';
import { prometheusApiRequests, type LoadedMonitor } from '../../model/prometheus-operator/discovery.ts';
import {
  authorizerRequest,
  forbiddenMessage,
  rbacAuthorizer,
  serviceAccountUser,
  type Decision,
  type NonResourceRequest,
  type ResourceRequest,
  type UserInfo,
} from '../authorization/rbac.ts';

/** How many refusals a finding spells out: a chart's whole RBAC gone is one mistake, not fifty lines. */
const SHOWN = 4;

type Authorize = (user: UserInfo, request: ResourceRequest | NonResourceRequest) => Decision;

/** A variable of the container as the kubelet sets it; null where the gate cannot read it (a reference, or an envFrom that may set it). */
function variableOf(container: Record<string, unknown>): (name: string) => string | undefined | null {
  const env = containerEnv(container);
  const fromSources = Array.isArray(container.envFrom) && container.envFrom.length > 0;
  return (name) => (env.has(name) ? env.get(name)! : fromSources ? null : undefined);
}

/** Whether the pod holds a token: its own automountServiceAccountToken, else its ServiceAccount's (true when neither says). */
function mountsToken(pod: PodSpecRef, account: Resource | undefined): boolean {
  const own = pod.spec.automountServiceAccountToken;
  if (typeof own === 'boolean') return own;
  return account?.object.automountServiceAccountToken !== false;
}

/** A program one container runs, and the requests it sends, each with its text as written or a variable it could not read. */
interface Run {
  workload: Resource;
  pod: PodSpecRef;
  c: ContainerRef;
  /** What runs, for the message: `"backup etcd"`, `k8s-sidecar`. */
  program: string;
  /** A command of an API-calling image that its facts do not list: judged only where the pod holds a token. */
  unlisted?: boolean;
  /** `why` says why an unread request could not be read, where a variable does not. */
  requests: { text: string; expanded: ExpandedRequest; why?: string }[];
  namespace: string;
}

/** The runs the image facts describe: each program a container runs, its requests read with the container's variables. */
function factRuns(ctx: CheckContext, at: Omit<Run, 'program' | 'requests'>): Run[] {
  const { needs } = repoImageNeeds(ctx.repo);
  const programs: ApiRequests[] = needs.get(imageKey(scalarText(at.c.container.image ?? '')))?.apiRequests ?? [];
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
  return ran.map((p) => ({
    ...at,
    program: JSON.stringify([...(p.command ?? []), ...(p.args ?? [])].join(' ')),
    requests: p.requests.map((text) => ({ text, expanded: expandRequest(text, variableOf(at.c.container)) })),
  }));
}

/** The run of a program the gate reads from its own container (k8s-sidecar's environment, kube-state-metrics' flags). */
function containerRuns(at: Omit<Run, 'program' | 'requests'>): Run[] {
  const sidecar = k8sSidecarRequests(at.c.container, at.namespace);
  const found = sidecar
    ? (['k8s-sidecar', sidecar] as const)
    : isKubeStateMetrics(at.c.container)
      ? (['kube-state-metrics', kubeStateMetricsRequests(at.c.container)] as const)
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
  const read = alloyApiRequests(text, at.namespace);
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

function judgeRun(ctx: CheckContext, authorize: Authorize, { workload, pod, c, program, requests, namespace, unlisted }: Run): void {
  const account = scalarText(pod.spec.serviceAccountName ?? pod.spec.serviceAccount ?? 'default') || 'default';
  const accountAt = { resource: workload, path: [...pod.at, pod.spec.serviceAccountName !== undefined ? 'serviceAccountName' : 'containers'] };
  const runs = `${workload.kind} ${workload.name} runs ${program} (container ${c.name})`;
  const serviceAccount = ctx.resources.find((r) => r.kind === 'ServiceAccount' && r.name === account && (r.namespace ?? namespace) === namespace);
  if (!mountsToken(pod, serviceAccount)) {
    // Without a token a command the facts do not list calls nothing: the image's other commands (a backup of an app's files).
    if (unlisted) return;
    ctx.fail(
      { resource: workload, path: pod.spec.automountServiceAccountToken === false ? [...pod.at, 'automountServiceAccountToken'] : accountAt.path },
      `${runs}, which calls the API server with its pod's token, and the pod mounts none (automountServiceAccountToken false): each of its ${requests.length} requests fails before it is authorized`,
    );
    return;
  }
  const user = serviceAccountUser(namespace, account);
  const denied: string[] = [];
  const unknown: string[] = [];
  for (const { text, expanded, why } of requests) {
    if ('unread' in expanded) {
      unknown.push(`${text} (${why ?? `${expanded.unread} is set from a source the gate does not read`})`);
      continue;
    }
    const q = authorizerRequest(expanded.method, expanded.url);
    const decision = authorize(user, q);
    if (decision === 'denied') denied.push(`${expanded.method} ${expanded.url}: ${forbiddenMessage(user.name, q)}`);
    else if (decision === 'unknown') unknown.push(`${expanded.method} ${expanded.url} (a role bound to ${user.name} is not declared in the repository)`);
  }
  if (denied.length > 0)
    ctx.fail(
      accountAt,
      `${runs} as ServiceAccount ${namespace}/${account}, and the API server refuses ${denied.length} of its ${requests.length} requests: ${denied.slice(0, SHOWN).join('; ')}${denied.length > SHOWN ? `; and ${denied.length - SHOWN} more` : ''}`,
    );
  if (unknown.length > 0)
    ctx.notJudged(accountAt, `${runs} as ServiceAccount ${namespace}/${account}: whether the API server allows ${unknown.join('; ')} is not known`);
}

export const programApiAuthorizedCheck: PolicyCheck = {
  id: 'program-api-authorized',
  description: `Every request a program the repository runs sends to the API server (its image's apiRequests in ${IMAGE_FACTS_GLOB}, matched by the container's command and args; each k8s-sidecar's lists and watches, read from its environment as k8s-sidecar 2.10 reads it; kube-state-metrics' informers, from its flags; what a rendered Alloy's configuration asks, component by component; and each rendered Prometheus' discoveries, from the monitors it loads and its Alertmanagers, as the operator writes them) is allowed by the RBAC the repository grants its pod's ServiceAccount, as the API server reads the request's path (RequestInfo) and its RBAC authorizer judges it, Kubernetes' bootstrap roles for discovery included; a pod that mounts no token is refused every one, and a command of such an image its facts do not list (in a pod holding a token), a request through a role the repository does not declare, or with a part set from a source the gate does not read, is not judged (invariants P1).`,
  invariants: ['P1'],
  remediation:
    "grant the ServiceAccount the verb on the resource (and name) the finding names, in a Role or ClusterRole bound to it; or run the program as the account that holds it; or correct the image's apiRequests facts",
  reads: {
    kinds: [
      ...WORKLOAD_KINDS,
      ...['ConfigMap', 'ServiceAccount', 'Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'],
      ...['Prometheus', 'ServiceMonitor', 'PodMonitor', 'Probe', 'ScrapeConfig', 'Namespace'],
    ],
    files: [IMAGE_FACTS_GLOB],
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    const authorize = rbacAuthorizer(ctx.resources);
    for (const workload of ctx.resources) {
      const pod = podSpecOf(workload);
      if (!pod) continue;
      const namespace = namespaceOrDestination(ctx.repo, workload) ?? 'default';
      for (const c of containersOf(pod))
        for (const run of [
          ...factRuns(ctx, { workload, pod, c, namespace }),
          ...containerRuns({ workload, pod, c, namespace }),
          ...alloyRuns(ctx, { workload, pod, c, namespace }),
        ])
          judgeRun(ctx, authorize, run);
    }
    for (const run of prometheusRuns(ctx)) judgeRun(ctx, authorize, run);
  },
};
