/**
 * network-policy-dns-egress: a pod that dials a Service by name asks the cluster's resolver first. Where the policies
 * that select it isolate its egress, some rule of them lets it out to CoreDNS's pods on 53/UDP (the resolver's queries
 * go over UDP; TCP only when an answer is cut short), as Cilium enforces NetworkPolicy and CiliumNetworkPolicy
 * together (model/cilium/egress.ts). Otherwise every lookup times out and so does every dial by name, while the rules
 * to the Services themselves look right: network-policy-egress-path judges those, and this the lookup before them.
 * The resolver is the pods the cluster facts give in kube-system with `k8s-app: kube-dns` (CoreDNS, as Talos labels
 * it). A pod on the node's network, or one whose dnsPolicy sends it elsewhere (Default, None), is not held to it.
 * Where every rule that lets the lookups out sends them through Cilium's DNS proxy (an egress rule to port 53 with
 * `rules.dns`), the proxy answers REFUSED to a name no rule of the policies selecting the pod allows, and the names
 * the resolver asks on the way to each dialled name must pass (dns-proxy.ts: the search path first; glibc gives up the
 * search list on a REFUSED, musl the lookup); a rule that lets them out without DNS rules lets every name through
 * (Cilium merges an L4-only allow of the same port as an allow-all at L7).
 */
import type { CheckContext, FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { podSpecOf } from '../../model/core/workloads.ts';
import { acrossPods, ciliumSelects, egressVerdict, type EgressVerdict } from '../../model/cilium/egress.ts';
import { refusedOutright } from '../../model/cilium/policy-rules.ts';
import type { PodPorts } from '../../model/cluster/network-reach.ts';
import { dig, list, obj } from '../../model/core/dig.ts';
import { ciliumDialect, dnsRules, firstRefused, fqdnSelectors, type ProxyDialect } from './dns-proxy.ts';
import { opaqueNamespaces, providedPods } from '../../model/cluster/providers.ts';
import { templatesWithPorts, type Template } from '../../model/cluster/pod-templates.ts';
import type { Repo } from '../../model/repository/repo.ts';
import { dialReads, dialScope, resolvedDials, type DialScope, type ResolvedDial } from './dials.ts';
import { firstNames, policyNames, selectorAt, selectsAll } from './refusals.ts';

/** CoreDNS's Service and the ports its pods serve DNS on (Talos' manifest: dns 53/UDP, dns-tcp 53/TCP). */
const RESOLVER = { namespace: 'kube-system', service: 'kube-dns', label: ['k8s-app', 'kube-dns'] as const, port: '53' };

/** The resolver's pods as a policy sees them, from the cluster facts' pods. */
function resolverPods(repo: Repo): PodPorts[] {
  const [key, value] = RESOLVER.label;
  return providedPods(repo)
    .filter((p) => p.namespace === RESOLVER.namespace && p.labels[key] === value)
    .map((p) => ({ namespace: p.namespace, labels: p.labels, named: new Map([['dns', '53']]) }));
}

/** Whether a pod asks the cluster's resolver: on the pod network, with dnsPolicy ClusterFirst (the default). */
function asksResolver(t: Template): boolean {
  if (t.hostNetwork) return false;
  const policy = podSpecOf(t.resource)?.spec.dnsPolicy;
  return policy === undefined || policy === 'ClusterFirst' || policy === 'ClusterFirstWithHostNet';
}

/** Whether a Cilium policy (not a NetworkPolicy) selects a pod: a clusterwide one anywhere, another in its own namespace. */
function ciliumPolicySelects({ policy, namespace }: DialScope['policies'][number], t: Template, namespaces: DialScope['peers']['namespaces']): boolean {
  if (policy.kind === 'NetworkPolicy') return false;
  return (
    (policy.kind === 'CiliumClusterwideNetworkPolicy' || t.namespace === namespace) &&
    ciliumSelects(dig(policy.object, ['spec', 'endpointSelector']), t, namespaces, namespace)
  );
}

/** What a lookup is judged by: the name dialled, where it is written, who dials it, and the pods it reaches (none of them asks it). */
type NamedDial = Pick<ResolvedDial, 'clients' | 'at'> & { address: { text: string }; pods: readonly unknown[]; fqdn?: true };

/**
 * The names a pod's Cilium policies let it reach by `toFQDNs` (matchName or matchPattern): Cilium learns their addresses only from the
 * answers to the pod's own lookups, through its DNS proxy, so the pod dials each by name (the API's blog feed), whether
 * or not the gate reads the address it dials.
 */
function fqdnDials(templates: readonly Template[], scope: DialScope): NamedDial[] {
  const out: NamedDial[] = [];
  for (const placed of scope.policies) {
    const { policy } = placed;
    const selects = (t: Template) => ciliumPolicySelects(placed, t, scope.peers.namespaces);
    list(dig(policy.object, ['spec', 'egress'])).forEach((rule, i) =>
      fqdnSelectors(obj(rule), ['spec', 'egress', i]).forEach(({ matchName, matchPattern, at }) => {
        // A pattern's names are looked up as a name's are: which one, the pod knows; the lookup goes out alike.
        const name = matchName ?? matchPattern;
        const clients = name ? templates.filter(selects) : [];
        if (clients.length)
          out.push({
            clients,
            address: { text: name! },
            at: { resource: policy, path: [...at, matchName !== undefined ? 'matchName' : 'matchPattern'] },
            pods: [],
            fqdn: true,
          });
      }),
    );
  }
  return out;
}

/** Each pod that dials by name, with its dials, once. */
function callers(dials: readonly NamedDial[]): Map<Template, NamedDial[]> {
  const out = new Map<Template, NamedDial[]>();
  for (const dial of dials) for (const t of dial.clients) if (!dial.pods.includes(t)) out.set(t, [...(out.get(t) ?? []), dial]);
  return out;
}

/** A dialled address's host as the resolver is asked it: no scheme, no port, no trailing dot. */
const hostOf = (text: string): string =>
  text
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/:\d+$/, '')
    .replace(/[.]$/, '');

/** A Cilium policy without its egress rules that send DNS through the proxy (an isolating policy stays isolating). */
function withoutProxyRules(policy: Resource): Resource {
  const egress = list(dig(policy.object, ['spec', 'egress'])).filter((rule) =>
    list(obj(rule).toPorts).every((tp) => list(dig(tp, ['rules', 'dns'])).length === 0),
  );
  return { ...policy, object: { ...policy.object, spec: { ...obj(policy.object.spec), egress } } } as Resource;
}

/** What the lookups of one pod are judged in: every policy, the namespaces and nodes, the resolver, the agent's dialect. */
interface Lookups extends DialScope {
  resolver: PodPorts[];
  dialect: ProxyDialect;
}

const SERVICE = { namespace: RESOLVER.namespace, name: RESOLVER.service };

/** The egress verdicts on a pod's lookups, one per resolver pod. */
const lookupVerdicts = (caller: Template, env: Pick<Lookups, 'policies' | 'peers' | 'resolver'>): EgressVerdict[] =>
  env.resolver.map((pod) => egressVerdict(env.policies, caller, { pod, port: RESOLVER.port, service: SERVICE, protocol: 'UDP' }, env.peers));

/**
 * Where a pod's lookups go out only through Cilium's DNS proxy, the first dial whose name the proxy refuses on the
 * way, with the name refused and the policies whose DNS rules it read; undefined where nothing is refused.
 */
function proxyRefusal(caller: Template, dials: readonly NamedDial[], env: Lookups): { dial: NamedDial; refused: string; by: Resource[] } | undefined {
  const selecting = env.policies.filter((placed) => ciliumPolicySelects(placed, caller, env.peers.namespaces));
  const byPolicy = selecting.map((p) => ({ policy: p.policy, rules: dnsRules(p.policy) })).filter((p) => p.rules.length > 0);
  const rules = byPolicy.flatMap((p) => p.rules);
  if (rules.length === 0) return undefined;
  const l4Only = env.policies.map((p) => (selecting.includes(p) ? { ...p, policy: withoutProxyRules(p.policy) } : p));
  // Lookups a rule lets out past the proxy to every resolver pod are never the proxy's to refuse.
  const past = acrossPods(lookupVerdicts(caller, { ...env, policies: l4Only }))?.verdict;
  if (past && 'allowed' in past) return undefined;
  for (const dial of dials) {
    const refused = firstRefused(rules, hostOf(dial.address.text), { namespace: caller.namespace, dialect: env.dialect });
    if (refused) return { dial, refused, by: byPolicy.map((p) => p.policy) };
  }
  return undefined;
}

export const dnsEgressCheck: PolicyCheck = {
  id: 'network-policy-dns-egress',
  description:
    "Where the NetworkPolicies and CiliumNetworkPolicies that select a pod isolate its egress, and the pod dials a Service by name (an address in its workload's object, its app's settings, a ConfigMap it reads, or a datasource Grafana's sidecar loads) or a host a Cilium policy lets it reach by toFQDNs (whose addresses Cilium learns only from its lookups), some egress rule lets it out to the cluster's resolver (the pods the cluster facts give in kube-system with k8s-app: kube-dns) on 53/UDP, as Cilium enforces both kinds (a NetworkPolicy port without a protocol is TCP; a Cilium port without one is any), and where every rule that lets the lookups out sends them through Cilium's DNS proxy (rules.dns on port 53), the proxy's rules let through each name the resolver asks on the way to each dialled name (the search path first); otherwise every lookup times out or is refused, and with it every dial by name, with every object accepted (invariants P1).",
  invariants: ['P1'],
  remediation:
    "add an egress rule to the pods' policy that lets them reach kube-dns on port 53 over UDP and TCP (a NetworkPolicy `to` kube-system's pods with k8s-app: kube-dns, ports 53/UDP and 53/TCP; or a CiliumNetworkPolicy's toEndpoints with k8s:io.kubernetes.pod.namespace: kube-system and k8s:k8s-app: kube-dns, protocol ANY)",
  reads: dialReads('a dial by name starts in a pod of any workload kind, past the policies and namespaces around it'),
  exemptible: false,
  run(ctx) {
    const scope = dialScope(ctx);
    if (scope.policies.length === 0) return;
    const resolver = resolverPods(ctx.repo);
    // The agent's version decides how it reads a pattern: the chart's, as the Application pins it.
    const env: Lookups = { ...scope, resolver, dialect: ciliumDialect(ctx.repo) };
    const opaque = opaqueNamespaces(ctx.renders);
    const templates = templatesWithPorts(ctx.repo).filter((t) => !opaque.has(t.namespace));
    const asking = [...callers([...resolvedDials(ctx), ...fqdnDials(templates, scope)])].filter(([caller]) => asksResolver(caller));
    if (resolver.length === 0 && asking.length > 0) {
      // One word for the whole run: the resolver is one fact, missing for every pod alike.
      const [caller, dials] = asking[0]!;
      ctx.notJudged(
        dials[0]!.at,
        `${asking.length} pods dial Services by name (the first: ${caller.resource.kind} ${caller.resource.name}), and the cluster facts give no resolver pods (kube-system, k8s-app: kube-dns in providedOutsideGit): whether their egress policies let their lookups out is not judged`,
      );
      return;
    }
    const shut = new Map<string, Shut[]>();
    for (const [caller, dials] of asking) {
      const first = dials[0]!;
      const at: FailurePlace = first.at;
      const asks = `${caller.resource.kind} ${caller.resource.name} dials ${first.address.text}${dials.length > 1 ? ` and ${dials.length - 1} more address${dials.length > 2 ? 'es' : ''}` : ''} by name`;
      const verdict = acrossPods(lookupVerdicts(caller, env))?.verdict;
      if (!verdict) continue;
      if ('allowed' in verdict) {
        // What the proxy refuses of a toFQDNs host is network-policy-fqdn-dns's to say.
        const proxy = proxyRefusal(
          caller,
          dials.filter((d) => !d.fqdn),
          env,
        );
        if (proxy)
          ctx.fail(
            proxy.dial.at,
            `${caller.resource.kind} ${caller.resource.name} dials ${proxy.dial.address.text} by name, and its lookups go out only through Cilium's DNS proxy, whose rules (${policyNames(proxy.by)}) do not let ${proxy.refused} through: the resolver asks that name on the way, the proxy answers REFUSED, and the lookup fails (glibc skips the rest of the search list, musl gives up), so the dial does too`,
          );
        continue;
      }
      if ('unknown' in verdict) {
        ctx.notJudged(at, `${asks}: whether its egress policies let its lookups out to the cluster's resolver is not known, as ${verdict.unknown} selects it`);
        continue;
      }
      const refused = verdict.refusedBy;
      // A Cilium policy the agent refuses outright enforces nothing: network-policy-cilium-accepted says so.
      if (refused.some(refusedOutright)) continue;
      const key = `${caller.namespace}\0${policyNames(refused)}`;
      shut.set(key, [...(shut.get(key) ?? []), { caller, at, asks, refused }]);
    }
    for (const group of shut.values()) judgeShut(ctx, group);
  },
};

/** The lookups one set of policies shuts: at a blanket policy once where it shuts several pods, else at each dial. */
function judgeShut(ctx: CheckContext, group: readonly Shut[]): void {
  const { caller, refused } = group[0]!;
  const without = (whose: 'its' | 'their') =>
    `let none of ${whose} lookups out to the cluster's resolver (kube-dns in kube-system, port 53/UDP): every lookup times out, and so does every dial by name`;
  const blanket = refused.find(selectsAll);
  if (group.length > 1 && blanket)
    return ctx.fail(
      selectorAt(blanket),
      `${policyNames(refused)} isolate${refused.length > 1 ? '' : 's'} the egress of ${group.length} workloads in ${caller.namespace} that dial Services by name (${firstNames(group.map((s) => `${s.caller.resource.kind} ${s.caller.resource.name}`))}) and ${without('their')}`,
    );
  for (const s of group)
    ctx.fail(s.at, `${s.asks}, and the egress policies that select its pods in ${s.caller.namespace} (${policyNames(s.refused)}) ${without('its')}`);
}

/** A pod whose lookups the policies shut: where its first dial is written, and what it dials. */
interface Shut {
  caller: Template;
  at: FailurePlace;
  asks: string;
  refused: Resource[];
}
