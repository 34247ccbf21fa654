/**
 * network-policy-cilium-accepted: a Cilium policy the API server stores is still only enforced if Cilium's agent
 * accepts it. The agent reads each policy (model/cilium/policy-rules.ts) and refuses a whole policy on the first rule
 * it cannot enforce, with an error in its log and nothing red in Argo CD: none of its rules exist.
 */
import { agentOptions, policyRefusal } from '../../model/cilium/policy-rules.ts';
import { obj } from '../../model/core/dig.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { cniOf } from '../../model/repository/cni.ts';

const KINDS = new Set(['CiliumNetworkPolicy', 'CiliumClusterwideNetworkPolicy']);

/** Where the chart renders the agent's settings (cilium-config in the release's namespace). */
const AGENT_CONFIG = 'cilium-config';

export const ciliumAcceptedCheck: PolicyCheck = {
  id: 'network-policy-cilium-accepted',
  description:
    "Every CiliumNetworkPolicy and CiliumClusterwideNetworkPolicy is one Cilium's agent accepts when it reads it (Cilium 1.19's Parse and Rule.Validate): a rule of at least one direction, for endpoints (a namespaced policy never for nodes); each ingress or egress rule naming one kind of peer (endpoints, CIDRs, entities, DNS names, nodes only where the agent reads node labels); DNS rules only on egress, with their port, never on a range or port 0; L7 rules only on TCP, and only where the agent runs its L7 proxy (enable-l7-proxy in the cilium-config the chart renders); ICMP rules apart from ports; ports a number or a name; selectors, CIDRs and DNS names it parses; otherwise the agent refuses the whole policy, logs it, and enforces none of its rules (invariants P1).",
  invariants: ['P1'],
  remediation:
    'split the rule the finding names as Cilium requires (one kind of peer per rule; DNS rules in an egress rule to port 53), or turn on the agent setting it names in apps/platform/cilium/values.yaml',
  reads: { kinds: [...KINDS, 'ConfigMap', 'Application'], charts: ['cilium'], renders: true },
  exemptible: false,
  run(ctx) {
    if (cniOf(ctx.repo).name !== 'cilium') return;
    const config = ctx.resources.find((r) => r.kind === 'ConfigMap' && r.name === AGENT_CONFIG && r.apiVersion === 'v1');
    const options = config ? agentOptions(obj(config.object.data)) : undefined;
    // Where the settings are unread, one word per setting for every policy resting on it: the chart's own "not rendered" says why.
    const unread = new Map<string, { first: Resource; names: string[] }>();
    for (const policy of ctx.resources.filter((r) => KINDS.has(r.kind) && r.apiVersion.startsWith('cilium.io/'))) {
      // A CiliumNetworkPolicy always lands in a namespace (its own, or the Application's destination).
      const refusal = policyRefusal(policy, policy.kind === 'CiliumNetworkPolicy', options);
      if (!refusal) continue;
      const name = `${policy.kind} ${policy.name}`;
      if (refusal.unread) {
        const seen = unread.get(refusal.unread) ?? { first: policy, names: [] };
        unread.set(refusal.unread, { ...seen, names: [...seen.names, name] });
      } else
        ctx.fail(
          { resource: policy, path: refusal.path },
          `${name} is refused by Cilium's agent: ${refusal.message}; it enforces none of the policy's rules, so what they allow is dropped wherever another policy isolates the pods, and what they would isolate stays open`,
        );
    }
    for (const [setting, { first, names }] of unread)
      ctx.notJudged(
        { resource: first, path: ['spec'] },
        `Cilium's agent accepts ${names.length === 1 ? names[0] : `${names.length} Cilium policies (${names.join(', ')})`} only where ${setting} is on in its ${AGENT_CONFIG}, which the cilium chart renders, and that chart is not rendered here`,
      );
  },
};
