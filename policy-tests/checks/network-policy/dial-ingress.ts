/**
 * network-policy-dial-ingress: the other end of each dial network-policy-egress-path follows. Where the policies that
 * select the pods behind a dialled Service isolate their ingress, some rule of them lets the dialling pods in on the
 * pod port (model/cilium/ingress.ts: NetworkPolicy and CiliumNetworkPolicy as Cilium enforces both; a pod on the
 * node's network arrives as its node on a cluster of several). Otherwise the connection times out at the pods, with
 * every object accepted: a torrent client that lets Sonarr in and not Radarr downloads for one manager only.
 * network-policy-default-deny says only that something is let in on each Service port; this says who. The callers are
 * the pod templates the gate sees (plain or rendered), by their labels; a rule the gate cannot place is said not judged.
 */
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { ingressVerdict } from '../../model/cilium/ingress.ts';
import { acrossPods, podTarget, type TargetPort } from '../../model/cilium/egress.ts';
import { addressNote, policyNames, timesOut } from './refusals.ts';
import { refusedOutright } from '../../model/cilium/policy-rules.ts';
import { nodeNetworkClient, type Client } from '../../model/cluster/network-reach.ts';
import type { Template } from '../../model/cluster/pod-templates.ts';
import { dialReads, dialText, judgeDials, type DialScope, type ResolvedDial } from './dials.ts';

/** Judges whether the pods behind one dial let each of its clients in. */
function judgeDial(ctx: CheckContext, dial: ResolvedDial, env: DialScope): void {
  for (const caller of dial.clients) {
    if (dial.pods.some((p) => p === caller)) continue; // its own address, which it hands to others
    const onNode = nodeNetworkClient(ctx.repo, caller.hostNetwork === true);
    // A pod on the node's network of a one-node cluster is the local host, which Cilium always lets in.
    if (caller.hostNetwork && !onNode.onNodeNetwork) continue;
    const client: Client = { namespace: caller.namespace, pods: [caller.labels], ...onNode };
    const across = acrossPods(dial.pods.map((pod) => ingressVerdict(env.policies, { pod, port: dial.port }, client, env.peers)));
    if (!across || 'allowed' in across.verdict) continue;
    const { verdict } = across;
    const pod = dial.pods[across.at]!;
    if ('unknown' in verdict) {
      ctx.notJudged(
        dial.at,
        `${dialText(caller, dial)}: whether the ingress policies of those pods let it in is not known, as ${verdict.unknown} selects them`,
      );
      continue;
    }
    const refused = verdict.refusedBy;
    // A Cilium policy the agent refuses outright enforces nothing: network-policy-cilium-accepted says so.
    if (refused.some(refusedOutright)) continue;
    ctx.fail(
      dial.at,
      `${dialText(caller, dial)}, and the ingress policies that select ${across.partly ? `the pods of ${pod.resource.kind} ${pod.resource.name}` : 'those pods'} in ${dial.address.namespace} (${policyNames(refused)}) let none of its pods in from namespace ${caller.namespace} on that port${why(caller, client, { policies: refused, target: podTarget(pod, dial.port) })}${timesOut(dial.pods, across)}`,
    );
  }
}

/** Why no rule lets the client in, where its kind of peer explains it: the node's identity, or an address block. */
function why(caller: Template, client: Client, refused: { policies: readonly Resource[]; target: TargetPort }): string {
  const { policies, target } = refused;
  if (client.onNodeNetwork)
    return " (its pods run on the node's network: at a pod on another node they arrive as that node, Cilium's remote-node, which no namespace or pod peer admits)";
  return caller.hostNetwork ? '' : addressNote(policies, { direction: 'from', target }, 'pod');
}

export const dialIngressCheck: PolicyCheck = {
  id: 'network-policy-dial-ingress',
  description:
    "Where the NetworkPolicies and CiliumNetworkPolicies that select the pods behind a Service isolate their ingress, every pod that dials that Service (an address in its workload's object, in the settings its app folder pushes into the app, in a ConfigMap its pod mounts or reads variables from, or in a datasource Grafana's sidecar loads into it) is let in on the port the address reaches by some ingress rule, as Cilium enforces both kinds (by its namespace and pod labels, Cilium's fromEndpoints or entities; an address block admits no pod; a pod on the node's network of a cluster of several nodes arrives as its node); otherwise the app's calls time out at the pods with every object accepted (invariants P1).",
  invariants: ['P1'],
  remediation:
    "add an ingress rule to a policy that selects the callee's pods that lets the caller's namespace and pods in on the Service's targetPort (a NetworkPolicy `from`, or a CiliumNetworkPolicy's fromEndpoints with k8s:io.kubernetes.pod.namespace)",
  reads: dialReads('a dial starts in a pod of any workload kind and ends at the pods behind a Service, past the policies and namespaces around both'),
  exemptible: false,
  run(ctx) {
    judgeDials(ctx, judgeDial);
  },
};
