/**
 * network-policy-api-egress: a program that calls the API server (model/programs/api-clients.ts: the image facts'
 * commands, k8s-sidecar, kube-state-metrics, a rendered Alloy, a rendered Prometheus' discoveries; and every pod whose
 * ServiceAccount a binding grants a role, an operator or a chart's hook among them), in a pod that holds a token and
 * is no host-network pod, reaches it past the egress policies that select its pods (model/cilium/egress.ts:
 * apiServerEgressVerdict). A pod known only by its role is a finding where its image's facts say it connects to the
 * API server (the Falco rule it trips, callsApiServer, or a setting of apiServerWhen its container's variables turn
 * on), passes where those facts say its settings turn no call on (falcosidekick's role, for outputs this repository
 * does not use), and is not judged where they say nothing: a chart may grant a role its program uses only with some
 * settings.
 * The API server is no pod: a NetworkPolicy `to` by namespace or pod never reaches it, nor Cilium's `world`; it takes
 * a rule to every destination on 6443/TCP, Cilium's `kube-apiserver` entity (or `cluster`, `all`), or toServices
 * default/kubernetes. Otherwise every request times out: the operator reconciles nothing, the sidecar loads no
 * dashboard, Prometheus discovers no target, with every object accepted and program-api-authorized green. A default
 * deny in a namespace shuts many programs at once: one finding, at the policy. A Cilium policy among those that
 * select the pods which the agent refuses outright is left to network-policy-cilium-accepted, the cause.
 */
import type { Resource } from '../../model/core/manifest.ts';
import type { CheckContext, FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';
import { templatesWithPorts } from '../../model/cluster/pod-templates.ts';
import { ADDRESS_CHARTS, nodeAddresses, peerFacts } from '../../model/cilium/node-addresses.ts';
import { addressNote, firstNames, policyNames, selectorAt, selectsAll } from './refusals.ts';
import { operatorPodLabels } from '../../model/cluster/providers.ts';
import { ENFORCED_POLICY_KINDS, placedPolicies } from '../../model/cluster/network-reach.ts';
import { apiServerEgressVerdict, API_SERVER_PORT, type EgressVerdict, API_SERVER_TARGET } from '../../model/cilium/egress.ts';
import { refusedOutright } from '../../model/cilium/policy-rules.ts';
import { apiRuns, grantedRuns, mountsToken, serviceAccountOf, type Run } from '../../model/programs/api-clients.ts';
import { IMAGE_FACTS_GLOB } from '../../model/repository/image-facts.ts';
import type { Obj } from '../../model/core/dig.ts';

/** The labels of the pods a run's workload makes: its template's, or those the operator gives a Prometheus' pods. */
function podLabelsOf(run: Run, byWorkload: ReadonlyMap<Resource, readonly { labels: Obj }[]>): Obj[] {
  const operatorMade = operatorPodLabels(run.workload);
  if (operatorMade) return [operatorMade];
  return (byWorkload.get(run.workload) ?? []).map((t) => t.labels);
}

/** What runs, for a message: `Deployment x runs "y" (container c)`; a pod known by its RBAC runs as its account. */
const runs = (run: Run): string =>
  `${run.workload.kind} ${run.workload.name} runs ${run.program}${run.workload.kind === 'Prometheus' || run.grantedBy ? '' : ` (container ${run.c.name})`}`;

/** Why the gate holds it calls the API server: the requests read, or the role its account is granted and its image. */
const calls = (run: Run): string =>
  run.grantedBy
    ? `which ${run.grantedBy.kind} ${run.grantedBy.name} grants a role${run.connects ? ` and whose image ${run.connects} connects to the API server (its facts)` : ''}`
    : `which calls the API server (${run.requests.length} request${run.requests.length === 1 ? '' : 's'})`;

function judge(ctx: CheckContext, shut: { run: Run; verdict: Extract<EgressVerdict, { refusedBy: Resource[] }> }[]): void {
  const first = shut[0]!;
  const policies = first.verdict.refusedBy;
  const note = addressNote(policies, { direction: 'to', target: API_SERVER_TARGET }, { apiServer: nodeAddresses(ctx.repo) });
  const without = `no rule to the API server (${API_SERVER_PORT}/TCP to every destination, or Cilium's kube-apiserver entity)${note}: each request times out`;
  const blanket = policies.find(selectsAll);
  if (shut.length > 1 && blanket) {
    const names = shut.map(({ run }) => `${run.workload.kind} ${run.workload.name}`);
    return ctx.fail(
      selectorAt(blanket),
      `${policyNames(policies)} isolate${policies.length > 1 ? '' : 's'} the egress of ${shut.length} programs in ${first.run.namespace} that call the API server (${firstNames(names)}), with ${without}`,
    );
  }
  for (const { run, verdict } of shut) {
    const place: FailurePlace = { resource: run.workload, path: run.pod.at };
    ctx.fail(
      place,
      `${runs(run)}, ${calls(run)}, and the egress policies that select its pods in ${run.namespace} (${policyNames(verdict.refusedBy)}) have ${without}`,
    );
  }
}

export const apiEgressCheck: PolicyCheck = {
  id: 'network-policy-api-egress',
  description: `Every program that calls the API server (the image facts' commands, each k8s-sidecar, kube-state-metrics, a rendered Alloy, a rendered Prometheus' discoveries, and each pod whose ServiceAccount a RoleBinding or ClusterRoleBinding grants a role and whose image's facts say it connects to the API server: a trip of Falco's rule for it, callsApiServer, or a setting of its apiServerWhen, read from the container's env and the Secrets and ConfigMaps its envFrom names; such a pod whose images' settings turn no call on sends nothing and needs no rule, and one whose images the facts say nothing of, or whose settings come from a value the gate does not read, is not judged), in a pod that holds a token and is not on the host's network, reaches it past the egress policies that select its pods, as Cilium enforces NetworkPolicy and CiliumNetworkPolicy together: the API server is no pod, so only a rule to every destination on ${API_SERVER_PORT}/TCP, Cilium's kube-apiserver entity (or cluster, all), toServices default/kubernetes, or an address block that holds every control-plane node of the cluster facts' nodeNetwork under a Cilium that matches nodes by CIDR (policyCIDRMatchMode: [nodes]) lets it through; otherwise each request times out and the program does nothing, with every object accepted (invariants P1).`,
  invariants: ['P1'],
  remediation: `add an egress rule for the API server to a policy that selects the program's pods: a CiliumNetworkPolicy with toEntities: [kube-apiserver] and toPorts ${API_SERVER_PORT}/TCP`,
  reads: {
    kinds: ['*'],
    everyKind:
      'a program that calls the API server runs in a pod of any workload kind (or one the operator makes for a Prometheus), as the account the RBAC grants a role, past the policies and namespaces around it',
    files: [IMAGE_FACTS_GLOB],
    charts: ['kube-prometheus-stack', ...ADDRESS_CHARTS],
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    const policies = placedPolicies(ctx.repo, ctx.resources, ENFORCED_POLICY_KINDS);
    if (policies.length === 0) return;
    const peers = peerFacts(ctx.repo);
    const byWorkload = Map.groupBy(templatesWithPorts(ctx.repo), (t) => t.resource);
    const groups = new Map<string, { run: Run; verdict: Extract<EgressVerdict, { refusedBy: Resource[] }> }[]>();
    const seen = new Set<Resource>();
    // The programs whose requests are read first, then each pod its RBAC says calls: one verdict per workload.
    for (const run of [...apiRuns(ctx), ...grantedRuns(ctx)]) {
      if (seen.has(run.workload) || run.unlisted || run.requests.length === 0 || !mountsToken(run.pod, serviceAccountOf(ctx, run).resource)) continue;
      // A role granted to a pod whose images' facts say their settings leave the API server alone: it sends nothing.
      if (run.settings === 'none') continue;
      // A pod on the node's network is no endpoint of its own: the policies that select pods do not hold it.
      if (run.pod.spec.hostNetwork === true) continue;
      seen.add(run.workload);
      for (const podLabels of podLabelsOf(run, byWorkload)) {
        const verdict = apiServerEgressVerdict(policies, { namespace: run.namespace, labels: podLabels, named: new Map() }, peers);
        if ('unknown' in verdict) {
          ctx.notJudged(
            { resource: run.workload, path: run.pod.at },
            `${runs(run)}, ${run.grantedBy ? calls(run) : 'which calls the API server'}: whether its egress policies let it reach it is not known, as ${verdict.unknown} selects its pods`,
          );
          break;
        }
        // A Cilium policy among them the agent refuses whatever its settings: network-policy-cilium-accepted says so.
        if ('refusedBy' in verdict && verdict.refusedBy.some(refusedOutright)) break;
        if ('refusedBy' in verdict && run.grantedBy && !run.connects) {
          // A role granted is no proof of a call: a chart may grant one its program uses only with some settings.
          ctx.notJudged(
            { resource: run.workload, path: run.pod.at },
            `${runs(run)}, ${calls(run)}, and the egress policies that select its pods in ${run.namespace} (${policyNames(verdict.refusedBy)}) have no rule to the API server: whether its program calls it is not known, as ${typeof run.settings === 'object' ? run.settings.unread : 'no facts of its images say it connects there'}`,
          );
          break;
        }
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
