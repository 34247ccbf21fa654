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
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { scalarText } from '../../model/core/text.ts';
import { podSpecOf, WORKLOAD_KINDS } from '../../model/core/workloads.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { IMAGE_FACTS_GLOB } from '../../model/repository/image-facts.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { apiRuns, connectingContainer, mountsToken, serviceAccountOf, type Run } from '../../model/programs/api-clients.ts';
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

function judgeRun(ctx: CheckContext, authorize: Authorize, { workload, pod, c, program, requests, namespace, unlisted }: Run): void {
  const { name: account, resource: serviceAccount } = serviceAccountOf(ctx, { pod, namespace });
  const accountAt = { resource: workload, path: [...pod.at, pod.spec.serviceAccountName !== undefined ? 'serviceAccountName' : 'containers'] };
  const runs = `${workload.kind} ${workload.name} runs ${program} (container ${c.name})`;
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

/**
 * Each other container whose image's facts say its program connects to the API server (model/repository/image-facts.ts:
 * containerConnects: an operator, a controller, a chart's hook; or settingsCall: a setting that turns its call on), in a pod that mounts no token: client-go's in-cluster
 * configuration finds no token file, and the program fails at start or every request is refused. A hardening that
 * turns the token off for a controller's account is a crash loop. One finding per workload, at the switch that turned
 * it off: the pod's own, else its ServiceAccount's.
 */
function judgeTokenless(ctx: CheckContext, judged: ReadonlySet<Resource>): void {
  for (const workload of ctx.resources) {
    const pod = judged.has(workload) ? undefined : podSpecOf(workload);
    if (!pod) continue;
    const namespace = namespaceOrDestination(ctx.repo, workload) ?? 'default';
    const { name: account, resource: serviceAccount } = serviceAccountOf(ctx, { pod, namespace });
    if (mountsToken(pod, serviceAccount)) continue;
    const connecting = connectingContainer(ctx, pod, namespace);
    if (!connecting) continue;
    const { c } = connecting;
    const own = pod.spec.automountServiceAccountToken === false;
    const at =
      own || !serviceAccount
        ? { resource: workload, path: [...pod.at, 'automountServiceAccountToken'] }
        : { resource: serviceAccount, path: ['automountServiceAccountToken'] };
    ctx.fail(
      at,
      `${workload.kind} ${workload.name} runs ${scalarText(c.container.image ?? '')} (container ${c.name}), whose program calls the API server with its pod's token (its image's facts${connecting.with ? `, with ${connecting.with}` : ''}), and the pod mounts none (automountServiceAccountToken false on ${own ? 'the pod' : `ServiceAccount ${namespace}/${account}`}, and no projected token where client-go reads it): it cannot authenticate, and every request fails`,
    );
  }
}

export const programApiAuthorizedCheck: PolicyCheck = {
  id: 'program-api-authorized',
  description: `Every request a program the repository runs sends to the API server (its image's apiRequests in ${IMAGE_FACTS_GLOB}, matched by the container's command and args; each k8s-sidecar's lists and watches, read from its environment as k8s-sidecar 2.10 reads it; kube-state-metrics' informers, from its flags; what a rendered Alloy's configuration asks, component by component; and each rendered Prometheus' discoveries, from the monitors it loads and its Alertmanagers, as the operator writes them) is allowed by the RBAC the repository grants its pod's ServiceAccount, as the API server reads the request's path (RequestInfo) and its RBAC authorizer judges it, Kubernetes' bootstrap roles for discovery included; a pod that mounts no token is refused every one (so is, in a pod that mounts none, a container whose image's facts say its program connects to the API server: a trip of Falco's rule for it by the binary the container starts, callsApiServer, or a setting of its apiServerWhen that the container's variables turn on), and a command of such an image its facts do not list (in a pod holding a token), a request through a role the repository does not declare, or with a part set from a source the gate does not read, is not judged (invariants P1).`,
  invariants: ['P1'],
  remediation:
    "grant the ServiceAccount the verb on the resource (and name) the finding names, in a Role or ClusterRole bound to it; or run the program as the account that holds it; or correct the image's apiRequests facts",
  reads: {
    // With what writes a Secret's or ConfigMap's keys: a container's envFrom sets the variables its requests are built from.
    kinds: withKeyProviders(
      ...WORKLOAD_KINDS,
      ...['ServiceAccount', 'Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'],
      ...['Prometheus', 'ServiceMonitor', 'PodMonitor', 'Probe', 'ScrapeConfig', 'Namespace'],
    ),
    files: [IMAGE_FACTS_GLOB],
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    const authorize = rbacAuthorizer(ctx.resources);
    const runs = apiRuns(ctx);
    for (const run of runs) judgeRun(ctx, authorize, run);
    judgeTokenless(ctx, new Set(runs.map((r) => r.workload)));
  },
};
