/**
 * network-policy-api-egress: a program that calls the API server (model/programs/api-clients.ts: the image facts'
 * commands, k8s-sidecar, kube-state-metrics, a rendered Alloy, a rendered Prometheus' discoveries), in a pod that holds
 * a token, reaches it past the egress policies that select its pods (model/cilium/egress.ts: apiServerEgressVerdict).
 * The API server is no pod: a NetworkPolicy `to` by namespace or pod never reaches it, nor Cilium's `world`; it takes
 * a rule to every destination on 6443/TCP, Cilium's `kube-apiserver` entity (or `cluster`, `all`), or toServices
 * default/kubernetes. Otherwise every request times out: the operator reconciles nothing, the sidecar loads no
 * dashboard, Prometheus discovers no target, with every object accepted and program-api-authorized green. A default
 * deny in a namespace shuts many programs at once: one finding, at the policy. A Cilium policy among those that
 * select the pods which the agent refuses outright is left to network-policy-cilium-accepted, the cause.
 */
import type { Resource } from '../../model/core/manifest.ts';
import type { CheckContext, FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';
import { namespaceLabels, templatesWithPorts } from '../../model/cluster/pod-templates.ts';
import { operatorPodLabels } from '../../model/cluster/providers.ts';
import { placedPolicies } from '../../model/cluster/network-reach.ts';
import { apiServerEgressVerdict, API_SERVER_PORT, type EgressVerdict } from '../../model/cilium/egress.ts';
import { policyRefusal } from '../../model/cilium/policy-rules.ts';
import { apiRuns, mountsToken, serviceAccountOf, type Run } from '../../model/programs/api-clients.ts';
import { IMAGE_FACTS_GLOB } from '../../model/repository/image-facts.ts';
import type { Obj } from '../../model/core/dig.ts';

const POLICY_KINDS = ['NetworkPolicy', 'CiliumNetworkPolicy', 'CiliumClusterwideNetworkPolicy'];

/** Whether Cilium's agent refuses the policy whatever its settings (it then enforces none of its rules). */
const refusedByAgent = (policy: Resource): boolean => {
  const refusal = policyRefusal(policy, policy.kind === 'CiliumNetworkPolicy', undefined);
  return refusal !== undefined && !refusal.unread;
};

/** The labels of the pods a run's workload makes: its template's, or those the operator gives a Prometheus' pods. */
function podLabelsOf(run: Run, byWorkload: ReadonlyMap<Resource, readonly { labels: Obj }[]>): Obj[] {
  const operatorMade = operatorPodLabels(run.workload);
  if (operatorMade) return [operatorMade];
  return (byWorkload.get(run.workload) ?? []).map((t) => t.labels);
}

/** What runs, for a message: `Deployment x runs "y" (container c)`. */
const runs = (run: Run): string =>
  `${run.workload.kind} ${run.workload.name} runs ${run.program}${run.workload.kind === 'Prometheus' ? '' : ` (container ${run.c.name})`}`;

const policyNames = (policies: readonly Resource[]): string => policies.map((p) => `${p.kind} ${p.name}`).join(', ');

/** Whether a policy selects every pod of its namespace (an empty selector): a default deny. */
const selectsAll = (policy: Resource): boolean => {
  const selector = (policy.object.spec as Obj | undefined)?.[policy.kind === 'NetworkPolicy' ? 'podSelector' : 'endpointSelector'];
  return selector !== null && typeof selector === 'object' && Object.keys(selector).length === 0;
};

function judge(ctx: CheckContext, shut: { run: Run; verdict: Extract<EgressVerdict, { refusedBy: Resource[] }> }[]): void {
  const first = shut[0]!;
  const policies = first.verdict.refusedBy;
  const without = `no rule to the API server (${API_SERVER_PORT}/TCP to every destination, or Cilium's kube-apiserver entity): each request times out`;
  const blanket = policies.find(selectsAll);
  if (shut.length > 1 && blanket) {
    const names = shut.map(({ run }) => `${run.workload.kind} ${run.workload.name}`);
    return ctx.fail(
      { resource: blanket, path: ['spec', blanket.kind === 'NetworkPolicy' ? 'podSelector' : 'endpointSelector'] },
      `${policyNames(policies)} isolate${policies.length > 1 ? '' : 's'} the egress of ${shut.length} programs in ${first.run.namespace} that call the API server (${names.slice(0, 4).join(', ')}${names.length > 4 ? `, and ${names.length - 4} more` : ''}), with ${without}`,
    );
  }
  for (const { run, verdict } of shut) {
    const place: FailurePlace = { resource: run.workload, path: run.pod.at };
    ctx.fail(
      place,
      `${runs(run)}, which calls the API server (${run.requests.length} request${run.requests.length === 1 ? '' : 's'}), and the egress policies that select its pods in ${run.namespace} (${policyNames(verdict.refusedBy)}) have ${without}`,
    );
  }
}

export const apiEgressCheck: PolicyCheck = {
  id: 'network-policy-api-egress',
  description: `Every program that calls the API server (the image facts' commands, each k8s-sidecar, kube-state-metrics, a rendered Alloy, a rendered Prometheus' discoveries), in a pod that holds a token, reaches it past the egress policies that select its pods, as Cilium enforces NetworkPolicy and CiliumNetworkPolicy together: the API server is no pod, so only a rule to every destination on ${API_SERVER_PORT}/TCP, Cilium's kube-apiserver entity (or cluster, all) or toServices default/kubernetes lets it through; otherwise each request times out and the program does nothing, with every object accepted (invariants P1).`,
  invariants: ['P1'],
  remediation: `add an egress rule for the API server to a policy that selects the program's pods: a CiliumNetworkPolicy with toEntities: [kube-apiserver] and toPorts ${API_SERVER_PORT}/TCP`,
  reads: {
    kinds: ['*'],
    everyKind:
      'a program that calls the API server runs in a pod of any workload kind (or one the operator makes for a Prometheus), past the policies and namespaces around it',
    files: [IMAGE_FACTS_GLOB],
    charts: ['kube-prometheus-stack'],
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    const policies = placedPolicies(ctx.repo, ctx.resources, POLICY_KINDS);
    if (policies.length === 0) return;
    const labels = namespaceLabels(ctx.repo);
    const byWorkload = Map.groupBy(templatesWithPorts(ctx.repo), (t) => t.resource);
    const groups = new Map<string, { run: Run; verdict: Extract<EgressVerdict, { refusedBy: Resource[] }> }[]>();
    const seen = new Set<Resource>();
    for (const run of apiRuns(ctx)) {
      if (seen.has(run.workload) || run.unlisted || run.requests.length === 0 || !mountsToken(run.pod, serviceAccountOf(ctx, run).resource)) continue;
      seen.add(run.workload);
      for (const podLabels of podLabelsOf(run, byWorkload)) {
        const verdict = apiServerEgressVerdict(policies, { namespace: run.namespace, labels: podLabels, named: new Map() }, labels);
        if ('unknown' in verdict) {
          ctx.notJudged(
            { resource: run.workload, path: run.pod.at },
            `${runs(run)}, which calls the API server: whether its egress policies let it reach it is not known, as ${verdict.unknown} selects its pods`,
          );
          break;
        }
        // A Cilium policy among them the agent refuses whatever its settings: network-policy-cilium-accepted says so.
        if ('refusedBy' in verdict && verdict.refusedBy.some((p) => p.kind.startsWith('Cilium') && refusedByAgent(p))) break;
        if ('refusedBy' in verdict) {
          const key = `${run.namespace}\0${policyNames(verdict.refusedBy)}`;
          groups.set(key, [...(groups.get(key) ?? []), { run, verdict }]);
          break;
        }
      }
    }
    for (const shut of groups.values()) judge(ctx, shut);
  },
};
