/**
 * network-policy-webhook-path: the API server reaches each webhook it calls through a Service (an admission webhook, a
 * CRD's conversion webhook, an aggregated API), past the ingress policies that select the Service's pods
 * (model/cilium/ingress.ts: apiServerIngressVerdict). The API server runs on the control-plane nodes' network: a
 * NetworkPolicy that lets in "every pod" (a namespaceSelector of {}) does not let it in, and neither does Cilium's
 * fromEndpoints. Then every request the webhook intercepts times out: refused where its failurePolicy is Fail (no
 * Certificate, no ExternalSecret is stored), let through unchecked where it is Ignore; a conversion webhook's
 * resources cannot be read in another version; an aggregated API answers nothing. Every object is accepted, and
 * the gate was green.
 */
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { dig, obj, type Obj } from '../../model/core/dig.ts';
import { selectorMatches } from '../../model/core/label-selector.ts';
import { templatesWithPorts } from '../../model/cluster/pod-templates.ts';
import { ADDRESS_CHARTS, peerFacts } from '../../model/cilium/node-addresses.ts';
import { podTarget } from '../../model/cilium/egress.ts';
import { addressNote, policyNames } from './refusals.ts';
import { ENFORCED_POLICY_KINDS, placedPolicies, reachesPod } from '../../model/cluster/network-reach.ts';
import { serviceIndex, webhookCalls } from '../../model/cluster/service-addresses.ts';
import { servicePort } from '../../model/cluster/ingress-routes.ts';
import { apiServerIngressVerdict } from '../../model/cilium/ingress.ts';
import { refusedOutright } from '../../model/cilium/policy-rules.ts';

/** The pods behind a Service and the pod port its port sends to. */
function podsBehind(ctx: CheckContext, service: Resource, port: number) {
  const selector = obj(dig(service.object, ['spec', 'selector']));
  const entry = servicePort(service, { number: port });
  if (!entry || Object.keys(selector).length === 0) return undefined; // no such port (the API server's own error), or endpoints by hand
  const target = String(entry.targetPort ?? entry.port);
  const pods = templatesWithPorts(ctx.repo).filter(
    (t) => t.namespace === (service.namespace ?? '') && selectorMatches({ matchLabels: selector as Obj }, t.labels) && reachesPod(t, target),
  );
  return { pods, target };
}

export const webhookPathCheck: PolicyCheck = {
  id: 'network-policy-webhook-path',
  description:
    "The API server reaches each webhook it calls through a Service (a ValidatingWebhookConfiguration's or MutatingWebhookConfiguration's webhooks, a CRD's conversion webhook, an APIService) past the ingress policies that select the Service's pods, as Cilium enforces NetworkPolicy and CiliumNetworkPolicy together: it runs on the control-plane nodes' network, so no namespace or pod peer admits it, only a NetworkPolicy rule with no peer, or Cilium's kube-apiserver entity (or cluster, all) or a rule of ports alone, or an address block that holds every control-plane node of the cluster facts' nodeNetwork under a Cilium that matches nodes by CIDR (policyCIDRMatchMode: [nodes]); one node entity alone is said not judged; otherwise each call times out, and the requests the webhook intercepts are refused (failurePolicy Fail) or pass unchecked (invariants P1).",
  invariants: ['P1'],
  remediation:
    "let the API server in on the webhook's pod port in a policy that selects its pods: a CiliumNetworkPolicy with fromEntities: [kube-apiserver] and that port, or a NetworkPolicy rule with the port and no from",
  reads: {
    kinds: ['*'],
    everyKind: "a webhook's Service sends to the pods of any workload kind, past the policies and namespaces around them",
    charts: ADDRESS_CHARTS,
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    const policies = placedPolicies(ctx.repo, ctx.resources, ENFORCED_POLICY_KINDS);
    if (policies.length === 0) return;
    const calls = webhookCalls(ctx.resources);
    if (calls.length === 0) return;
    const peers = peerFacts(ctx.repo);
    const services = serviceIndex(ctx.repo, ctx.resources);
    // One finding per configuration and Service: a chart's five webhooks behind one Service are one mistake.
    const judged = new Set<string>();
    for (const call of calls) {
      const key = `${call.resource.kind}/${call.resource.name}\0${call.service.namespace}/${call.service.name}`;
      if (judged.has(key)) continue;
      const service = services.named(call.service.namespace, call.service.name);
      const behind = service && podsBehind(ctx, service, call.service.port);
      if (!behind) continue; // a Service or port that is not there is another check's, or the API server's, to say
      for (const pod of behind.pods) {
        const verdict = apiServerIngressVerdict(policies, pod, behind.target, peers);
        if ('allowed' in verdict) continue;
        judged.add(key);
        const to = `${call.what} sends the API server to Service ${call.service.namespace}/${call.service.name} (port ${call.service.port}, the port ${behind.target} of ${pod.resource.kind} ${pod.resource.name}'s pods)`;
        if ('unknown' in verdict)
          ctx.notJudged(
            { resource: call.resource, path: call.at },
            `${to}: whether its ingress policies let the API server in is not known, as ${verdict.unknown} selects the pods`,
          );
        // A Cilium policy the agent refuses outright enforces nothing: network-policy-cilium-accepted says so.
        else if (!verdict.refusedBy.some(refusedOutright))
          ctx.fail(
            { resource: call.resource, path: call.at },
            `${to}, and the ingress policies that select those pods in ${pod.namespace} (${policyNames(verdict.refusedBy)}) let no call of the API server in: it runs on the control-plane nodes' network, which no namespace or pod peer admits${addressNote(verdict.refusedBy, { direction: 'from', target: podTarget(pod, behind.target) }, { apiServer: peers.nodes })}, so each call times out and ${call.lost}`,
          );
        break;
      }
    }
  },
};
