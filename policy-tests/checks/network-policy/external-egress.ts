/**
 * network-policy-external-egress: where the policies that select a pod isolate its egress, each address outside the
 * cluster its program dials (its image facts' `dials`, model/programs/outbound-dials.ts: the API's blog feed, the
 * variable's URL or the default its program dials where the variable is unset) gets out on the URL's port by some
 * egress rule, as Cilium enforces NetworkPolicy and CiliumNetworkPolicy together: a Cilium rule whose toFQDNs name or
 * pattern matches the host, the world entity (or all), a rule with no destination, or a block of every IPv4 address.
 * Otherwise every fetch times out with every object accepted: the feed narrowed to port 80 while the URL says https.
 * A block that holds some addresses, a group or a Service selector is not judged: the host's addresses are the
 * internet's. What Cilium's DNS proxy lets the pod look up is network-policy-fqdn-dns's and network-policy-dns-egress's.
 */
import type { CheckContext, FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';
import { dig, list, obj, str, type Obj } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { scalarText } from '../../model/core/text.ts';
import { containersOf, podSpecOf, type ContainerRef } from '../../model/core/workloads.ts';
import { anyAdmits, policyVerdict, portsAdmit, portsAlone, toPortsAdmit, type RuleVerdict, type TargetPort } from '../../model/cilium/egress.ts';
import { ENFORCED_POLICY_KINDS, placedPolicies, type Placed } from '../../model/cluster/network-reach.ts';
import { namespaceLabels, templatesWithPorts, type Template } from '../../model/cluster/pod-templates.ts';
import { opaqueNamespaces } from '../../model/cluster/providers.ts';
import { isServiceDomainHost, urlPort } from '../../model/cluster/service-addresses.ts';
import { containerEnvironment, givenVariablePath } from '../../model/cluster/environment.ts';
import { IMAGE_FACTS_GLOB, imageKey, repoImageNeeds } from '../../model/repository/image-facts.ts';
import { dialledUrl, runsDialler } from '../../model/programs/outbound-dials.ts';
import { ciliumDialect, dnsAllows, fqdnSelectors, type ProxyDialect } from './dns-proxy.ts';
import { addressPeers } from '../../model/cilium/node-addresses.ts';
import { policyNames } from './refusals.ts';

/** A host the cluster's resolver answers itself (a Service's name, short or whole, or the cluster's domain): network-policy-egress-path's, not this. */
const inCluster = (host: string): boolean => !host.includes('.') || isServiceDomainHost(host) || /(^|\.)cluster\.local$/.test(host);

/** Where a connection goes outside the cluster: the host the URL names and its port (the scheme's where it names none). */
interface Outside {
  host: string;
  port: TargetPort;
}

const EVERY_IPV4 = '0.0.0.0/0';

/**
 * A rule's address blocks (model/cilium/node-addresses.ts) to a host the gate knows by name: a block of every IPv4
 * address with nothing cut out admits it; any other block, or one the gate cannot read, may hold it or not.
 */
function blocksVerdict(rule: Obj, kind: 'NetworkPolicy' | 'Cilium'): RuleVerdict {
  const { peers, unread } = addressPeers(rule, 'to', kind);
  if (peers.some((p) => p.cidr === EVERY_IPV4 && p.except.length === 0)) return 'admits';
  return peers.length > 0 || unread ? 'unknown' : 'no';
}

/** Whether a rule names the host by toFQDNs, as the DNS proxy matches a name. */
const namesHost = (rule: Obj, host: string, dialect: ProxyDialect): boolean => dnsAllows(fqdnSelectors(rule, []), host, dialect);

function ciliumRule(rule: Obj, to: Outside, dialect: ProxyDialect): RuleVerdict {
  if (!toPortsAdmit(rule, to.port)) return 'no';
  if (portsAlone(rule)) return 'admits';
  if (namesHost(rule, to.host, dialect)) return 'admits';
  const entities = list(rule.toEntities).map(str);
  if (entities.includes('world') || entities.includes('all')) return 'admits';
  const unread = entities.some((e) => e.startsWith('world-')) || rule.toGroups !== undefined || list(rule.toServices).some((s) => obj(s).k8sServiceSelector);
  return anyAdmits([blocksVerdict(rule, 'Cilium'), unread ? 'unknown' : 'no']);
}

function networkPolicyRule(rule: Obj, to: Outside): RuleVerdict {
  if (!portsAdmit(list(rule.ports).map(obj), to.port)) return 'no';
  return list(rule.to).length === 0 ? 'admits' : blocksVerdict(rule, 'NetworkPolicy');
}

/**
 * A rule of the refusing Cilium policies that names the host by toFQDNs but not on this port: the slip, where the
 * finding belongs, with the ports it lets through for the message.
 */
function nearMiss(refusedBy: readonly Resource[], to: Outside, dialect: ProxyDialect): { place: FailurePlace; ports: string } | undefined {
  for (const policy of refusedBy) {
    if (policy.kind === 'NetworkPolicy') continue;
    const rules = list(dig(policy.object, ['spec', 'egress'])).map(obj);
    const i = rules.findIndex((r) => namesHost(r, to.host, dialect));
    if (i < 0) continue;
    const ports = list(rules[i]!.toPorts).flatMap((tp) =>
      list(obj(tp).ports).map((p) => `${scalarText(obj(p).port ?? 'any')}/${str(obj(p).protocol) || 'ANY'}`),
    );
    return {
      place: { resource: policy, path: ['spec', 'egress', i, rules[i]!.toPorts === undefined ? 'toFQDNs' : 'toPorts'] },
      ports: ports.length ? ` (its toFQDNs rule for the host lets ${ports.join(', ')} through)` : '',
    };
  }
  return undefined;
}

interface Scope {
  policies: Placed[];
  namespaces: ReadonlyMap<string, Obj>;
  dialect: ProxyDialect;
}

/** Judges each dial of one container of a pod template. */
function judgeContainer(ctx: CheckContext, t: Template, c: ContainerRef, scope: Scope): void {
  const image = scalarText(c.container.image ?? '');
  const dials = (repoImageNeeds(ctx.repo).needs.get(imageKey(image))?.dials ?? []).filter((d) => runsDialler(d, c.container));
  // Most containers dial nothing out: their environment is not worked out.
  if (dials.length === 0) return;
  const environment = containerEnvironment(ctx, t.namespace, c.container);
  for (const dial of dials) {
    const read = dialledUrl(dial, environment.text);
    const imageAt: FailurePlace = { resource: t.resource, path: [...c.at, 'image'] };
    if (read && 'unread' in read) {
      ctx.notJudged(
        imageAt,
        `container ${c.name} sets ${read.unread} from a value the gate does not read: whether its egress policies let ${image} reach the address it names is not judged`,
      );
      continue;
    }
    if (!read || !['http:', 'https:'].includes(read.url.protocol)) continue; // a value no http(s) URL is envFormat's to say
    const host = read.url.hostname.toLowerCase().replace(/\.$/, '');
    if (inCluster(host)) continue;
    const number = urlPort(read.url);
    const to: Outside = { host, port: { same: (p) => p === String(number), number } };
    const verdict = policyVerdict(scope.policies, t, 'egress', {
      namespaceLabels: scope.namespaces,
      networkPolicy: (rule) => networkPolicyRule(rule, to),
      cilium: (rule) => ciliumRule(rule, to, scope.dialect),
    });
    if ('allowed' in verdict) continue;
    const set = read.set.at(-1);
    const entry = set === undefined ? undefined : environment.entries.findLast((e) => e.name === set);
    const dialAt: FailurePlace = entry ? { resource: t.resource, path: [...c.at, ...givenVariablePath(entry, 'value')] } : imageAt;
    const dialled = `${t.resource.kind} ${t.resource.name} (container ${c.name}) dials ${read.url.href} (${set ? `its ${set}` : "its image's default, no variable set"}) on ${number}/TCP`;
    if ('unknown' in verdict) {
      ctx.notJudged(dialAt, `${dialled}: whether its egress policies let it out is not known, as ${verdict.unknown} selects it`);
      continue;
    }
    const slip = entry ? undefined : nearMiss(verdict.refusedBy, to, scope.dialect);
    ctx.fail(
      slip?.place ?? dialAt,
      `${dialled}, and the egress policies that select its pods in ${t.namespace} (${policyNames(verdict.refusedBy)}) have no rule that lets it reach ${host} on that port${slip?.ports ?? ''}: each connection times out, with every object accepted (its image facts' dials)`,
    );
  }
}

export const externalEgressCheck: PolicyCheck = {
  id: 'network-policy-external-egress',
  description:
    "Where the NetworkPolicies and CiliumNetworkPolicies that select a pod isolate its egress, every address outside the cluster its program dials (its image facts' dials: the URL a variable sets, or the default the program dials where it is unset or empty) gets out on the URL's port (its scheme's where it names none) by some egress rule, as Cilium enforces both kinds: a Cilium rule whose toFQDNs matchName or matchPattern matches the host, Cilium's world or all entity, a rule with no destination, or a block of every IPv4 address; otherwise every connection times out with every object accepted (a block of some addresses, a group or a Service selector is not judged) (invariants P1).",
  invariants: ['P1'],
  remediation:
    "allow the host on the URL's port: a CiliumNetworkPolicy egress rule with toFQDNs: [{matchName: <host>}] and toPorts for the port, beside the DNS rule that lets the pod look it up",
  reads: {
    kinds: ['*'],
    everyKind:
      'a dial starts in a pod of any workload kind, reads variables from the ConfigMaps and Secrets around it, and goes past the policies and namespaces around it',
    files: [IMAGE_FACTS_GLOB],
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    const policies = placedPolicies(ctx.repo, ctx.resources, ENFORCED_POLICY_KINDS);
    if (policies.length === 0) return;
    const scope: Scope = { policies, namespaces: namespaceLabels(ctx.repo), dialect: ciliumDialect(ctx.repo) };
    const opaque = opaqueNamespaces(ctx.renders);
    for (const t of templatesWithPorts(ctx.repo)) {
      const pod = podSpecOf(t.resource);
      if (!pod || t.hostNetwork || opaque.has(t.namespace)) continue;
      for (const c of containersOf(pod)) judgeContainer(ctx, t, c, scope);
    }
  },
};
