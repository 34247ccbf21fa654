/**
 * Network policies the cluster enforces. The `cni` cluster fact names the CNI
 * and what it enforces; these checks hold every policy to it, the fact to what
 * that CNI is documented to do (model/repository/cni.ts), and DNS-name egress to the DNS
 * rule that makes it work.
 */
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { appDeployingChart } from '../../model/cluster/cni-application.ts';
import { cniOf, isNetworkPolicy, KNOWN_CNIS, qualifiedKind, type CniFacts } from '../../model/repository/cni.ts';
import { dig, list, obj, type Obj } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { ciliumDialect, dnsRules, firstRefused, SERVICE_NAME_EXAMPLE, type DnsRule } from './dns-proxy.ts';

const CLUSTER_SUFFIX = 'cluster.local';

const FACT = 'cluster fact "cni" in clusters/home/cluster-facts.yaml';

/** A Cilium policy's egress rules that name DNS names, with where each is written. */
function fqdnRules(policy: Resource): number[] {
  return list(dig(policy.object, ['spec', 'egress'])).flatMap((rule, i) => (list(obj(rule).toFQDNs).length > 0 ? [i] : []));
}

const endpointSelector = (policy: Resource): Obj => obj(dig(policy.object, ['spec', 'endpointSelector']));

function checkFactAgainstKnown(ctx: CheckContext, cni: CniFacts): void {
  const facts = ctx.repo.factsResource;
  const known = KNOWN_CNIS[cni.name];
  if (!facts || !known) return; // a CNI the gate does not know: its claims are taken as stated
  const overclaimed = cni.enforces.filter((k) => !known.enforces.includes(k));
  if (overclaimed.length > 0)
    ctx.fail(
      { resource: facts, path: ['data', 'cni'] },
      `the cluster fact "cni" says ${cni.name} enforces ${overclaimed.join(', ')}, which it does not (${known.source}): a policy of that kind would pass the gate and enforce nothing`,
    );
  if (cni.fqdnEgress && !known.fqdnEgress)
    ctx.fail(
      { resource: facts, path: ['data', 'cni'] },
      `the cluster fact "cni" says ${cni.name} enforces DNS-name egress, which it does not (${known.source})`,
    );
  if (known.chart && !appDeployingChart(ctx.repo, known.chart))
    ctx.fail(
      { resource: facts, path: ['data', 'cni'] },
      `the cluster fact "cni" names ${cni.name}, and no Application deploys its chart ${known.chart}: the nodes would have no CNI`,
    );
  for (const [name, other] of Object.entries(KNOWN_CNIS)) {
    if (name === cni.name || !other.chart) continue;
    const app = appDeployingChart(ctx.repo, other.chart);
    if (app)
      ctx.fail(
        { resource: app.resource, path: ['spec'] },
        `Application ${app.name} deploys the CNI ${name} (chart ${other.chart}), while the cluster fact "cni" names ${cni.name}: two CNIs on one node fight over every pod's network`,
      );
  }
}

export const cniChecks: PolicyCheck[] = [
  {
    id: 'network-policy-enforced',
    description:
      'Every network policy (NetworkPolicy, or a CNI-specific kind) is one the cluster\'s CNI enforces, as the cluster fact "cni" states, and the fact claims no more than that CNI is documented to do; a policy the CNI ignores is accepted by the API server and drops nothing (invariants P1).',
    invariants: ['P1'],
    remediation: 'run a CNI that enforces the policy (apps/platform/cilium, with the fact naming it), or delete the policy; keep the fact to what the CNI does',
    reads: { kinds: ['*'], everyKind: 'the CNI the facts name is found among every Application and everything it renders', renders: true },
    exemptible: false,
    run(ctx) {
      const cni = cniOf(ctx.repo);
      checkFactAgainstKnown(ctx, cni);
      for (const policy of ctx.resources.filter(isNetworkPolicy)) {
        const kind = qualifiedKind(policy.apiVersion, policy.kind);
        const ns = namespaceOrDestination(ctx.repo, policy);
        const name = `${policy.kind} ${ns ? `${ns}/` : ''}${policy.name}`;
        if (!cni.enforces.includes(kind)) {
          ctx.fail(
            { resource: policy, path: ['kind'] },
            `${name} is inert: the cluster's CNI (${cni.name}, ${FACT}) does not enforce ${kind}, so the API server stores it and no packet is dropped`,
          );
          continue;
        }
        if (cni.fqdnEgress) continue;
        for (const i of fqdnRules(policy))
          ctx.fail(
            { resource: policy, path: ['spec', 'egress', i, 'toFQDNs'] },
            `${name} allows egress by DNS name, which the cluster's CNI (${cni.name}, ${FACT}) does not enforce: the rule allows nothing`,
          );
      }
    },
  },
  {
    id: 'network-policy-fqdn-dns',
    description:
      "A Cilium policy that allows egress by DNS name (toFQDNs) also sends its pods' DNS through Cilium's DNS proxy (an egress rule to port 53 with rules.dns) for the same pods, since Cilium learns a name's addresses only from the answers its proxy sees; and the proxy's rules let through every name the pods' resolver asks on the way, matched as Cilium matches them (`*` within one label, a leading `**.` for several): each DNS name's search-path names (<name>.<namespace>.svc.cluster.local first), and, where the rules mean to let cluster names through, a Service's name (<service>.<namespace>.svc.cluster.local). A refused name ends the lookup: glibc gives up the search list, musl the whole lookup (invariants P1).",
    invariants: ['P1'],
    remediation:
      "add an egress rule to kube-dns on port 53 (UDP and TCP) with rules: {dns: [{matchName: <each host>}, {matchPattern: '**.cluster.local'}]} to the same policy, or to one with the same endpointSelector",
    reads: { kinds: ['CiliumNetworkPolicy', 'CiliumClusterwideNetworkPolicy', 'Application'], renders: true },
    exemptible: false,
    run(ctx) {
      const cilium = ctx.resources.filter((r) => r.apiVersion.startsWith('cilium.io/'));
      // The agent's version decides how it reads a pattern: the chart's, as the Application pins it.
      const dialect = ciliumDialect(ctx.repo);
      // The pods a policy is for, by namespace and selector: the DNS rules of every policy for the same pods apply.
      const podsOf = new Map(cilium.map((p) => [p, `${namespaceOrDestination(ctx.repo, p) ?? ''}\0${JSON.stringify(endpointSelector(p))}`]));
      const rulesFor = new Map<string, DnsRule[]>();
      for (const p of cilium) rulesFor.set(podsOf.get(p)!, [...(rulesFor.get(podsOf.get(p)!) ?? []), ...dnsRules(p)]);
      for (const policy of cilium) {
        const ns = namespaceOrDestination(ctx.repo, policy) ?? '';
        const rules = rulesFor.get(podsOf.get(policy)!)!;
        const fqdnAt = fqdnRules(policy);
        if (fqdnAt.length > 0 && rules.length === 0) {
          ctx.fail(
            { resource: policy, path: ['spec', 'egress', fqdnAt[0]!, 'toFQDNs'] },
            `${policy.kind} ${policy.name} allows egress by DNS name, and no policy for the same pods sends their DNS through Cilium's proxy (port 53 with rules.dns): the name never resolves to an allowed address`,
          );
          continue;
        }
        for (const i of fqdnAt)
          list(dig(policy.object, ['spec', 'egress', i, 'toFQDNs'])).forEach((selector, j) => {
            const name = obj(selector).matchName;
            if (typeof name !== 'string') return;
            const refused = firstRefused(rules, name, { namespace: ns, dialect });
            if (refused)
              ctx.fail(
                { resource: policy, path: ['spec', 'egress', i, 'toFQDNs', j, 'matchName'] },
                `${policy.kind} ${policy.name} allows ${name}, and its pods' resolver asks ${refused} on the way, which no DNS rule lets through: Cilium's proxy answers REFUSED, where a musl resolver fails the lookup and glibc skips the rest of the search list (a pattern's * matches one label; **.cluster.local lets the search path through)`,
              );
          });
        const own = dnsRules(policy);
        const clusterRule = own.find((r) => (r.matchPattern ?? r.matchName ?? '').replace(/[.]$/, '').endsWith(CLUSTER_SUFFIX));
        const refused = clusterRule ? firstRefused(rules, SERVICE_NAME_EXAMPLE, { namespace: ns, dialect }) : undefined;
        if (clusterRule && refused)
          ctx.fail(
            { resource: policy, path: clusterRule.at },
            `${policy.kind} ${policy.name} lets ${clusterRule.matchPattern ?? clusterRule.matchName} through Cilium's DNS proxy, where * matches one label: the first name its pods' resolver asks for a Service (${refused.replace(/^service[.]namespace/, '<service>.<namespace>')}) is refused, so they reach no Service by name; write **.cluster.local`,
          );
      }
    },
  },
];
