/**
 * network-policy-egress-path: where the policies that select a pod isolate its egress, each in-cluster address it
 * dials (written in its workload, in the settings the scripts push into its app, in a ConfigMap its pod mounts or
 * reads variables from, or in a datasource Grafana's sidecar loads into its pod) reaches the pods behind that
 * Service (the repository's, or those the operator makes for a Prometheus or an Alertmanager) on the port the address names, by some egress rule (model/cilium/egress.ts: NetworkPolicy and
 * CiliumNetworkPolicy as Cilium enforces both). Otherwise the app's calls time out: the torrent client never gets a
 * download, Prowlarr never reaches a manager, with every object accepted. A rule whose peer the gate cannot place (an
 * address block the nodes decide, a group, a deny rule) is said not judged. DNS and addresses with no port the gate can read are
 * not judged here; the destination's own ingress policies are network-policy-dial-ingress's (dials.ts reads the dials for both).
 */
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { acrossPods, egressVerdict, onNodeNetwork, podTarget } from '../../model/cilium/egress.ts';
import { addressNote, policyNames, timesOut } from './refusals.ts';
import { dialReads, dialText, judgeDials, type DialScope, type ResolvedDial } from './dials.ts';

/** Judges one dial's clients' egress to the pods behind its Service. */
function judgeDial(ctx: CheckContext, dial: ResolvedDial, env: DialScope): void {
  const { pods, port } = dial;
  for (const client of dial.clients) {
    if (pods.some((p) => p === client)) continue; // its own address, which it hands to others
    const across = acrossPods(
      pods.map((pod) => egressVerdict(env.policies, client, { pod, port, service: { namespace: dial.address.namespace, name: dial.service.name } }, env.peers)),
    );
    if (!across || 'allowed' in across.verdict) continue;
    const { verdict } = across;
    const pod = pods[across.at]!;
    const dials = dialText(client, dial);
    if ('unknown' in verdict) {
      ctx.notJudged(dial.at, `${dials}: whether its egress policies let it is not known, as ${verdict.unknown} selects it`);
      continue;
    }
    const refused = verdict.refusedBy;
    ctx.fail(
      dial.at,
      `${dials}, and the egress policies that select its pods in ${client.namespace} (${policyNames(refused)}) ${across.partly ? `do not let it reach the pods of ${pod.resource.kind} ${pod.resource.name}` : 'let it reach none of them'} on that port${pod.hostNetwork ? onNodeNetwork(pod) : addressNote(refused, { direction: 'to', target: podTarget(pod, port) }, 'pod')}${timesOut(pods, across)}`,
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
  reads: dialReads('a dial starts in a pod of any workload kind and ends behind a Service, past the policies and namespaces around both'),
  exemptible: false,
  run(ctx) {
    judgeDials(ctx, judgeDial);
  },
};
