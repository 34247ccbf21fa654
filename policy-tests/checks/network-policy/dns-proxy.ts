/**
 * What Cilium's DNS proxy lets a pod ask. A policy with DNS rules on port 53 sends every query of the pods it
 * selects through the proxy, which answers REFUSED to a name no rule allows (the agent's
 * tofqdns-dns-reject-response-code, refused by default). A pod's resolver asks a short name through the kubelet's
 * search path first (ndots 5): `<name>.<namespace>.svc.cluster.local`, `<name>.svc.cluster.local`,
 * `<name>.cluster.local`, then the name itself. On a REFUSED, glibc gives up the search list (musl the whole
 * lookup), so each of those names must be let through for the right one to be asked.
 *
 * Patterns match as Cilium's pkg/fqdn/matchpattern does: `*` alone matches every name; otherwise `*` is any run of
 * DNS characters within one label (`*.cluster.local` is `a.cluster.local`, never `a.b.cluster.local`), and a leading
 * `**.` one or more whole labels (Cilium 1.19).
 */
import { dig, list, obj, type Obj } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { Path } from '../../model/core/positions.ts';
import { appDeployingChart } from '../../model/cluster/cni-application.ts';
import type { Repo } from '../../model/repository/repo.ts';

const DNS_CHARS = '[-a-zA-Z0-9_]';
const CLUSTER_DOMAIN = 'cluster.local';

/** A rule of `toPorts[].rules.dns`, with where it is written. */
export interface DnsRule {
  matchName?: string;
  matchPattern?: string;
  at: Path;
}

const fqdn = (name: string) => (name.endsWith('.') ? name : `${name}.`).toLowerCase();

/**
 * Cilium's regular expression for a matchPattern (anchored, for a name with its trailing dot). `multiLabel` is
 * whether the agent reads a leading `**.` as several labels (1.19 and later); before, it was one `*` like any other.
 */
export function patternRegex(pattern: string, { multiLabel = true } = {}): RegExp {
  // In the agent's order: Sanitize (a trailing dot, unless the pattern is all stars), then trimmed and lowercased.
  const wildcard = (x: string) => /^[*]+[.]?$/.test(x);
  const name = (wildcard(pattern) ? pattern : pattern.endsWith('.') ? pattern : `${pattern}.`).trim().toLowerCase();
  if (wildcard(name)) return new RegExp(`^(${DNS_CHARS}+[.])+$|^[.]$`);
  const labels = multiLabel && /^[*]{2,}[.]/.test(name);
  // The rest of the pattern first, so the labels' group keeps its own quantifier.
  const rest = (labels ? name.replace(/^[*]{2,}[.]/, '') : name).replaceAll('.', '[.]').replace(/[*]+/g, `${DNS_CHARS}*`);
  return new RegExp(`^${labels ? `${DNS_CHARS}+([.]${DNS_CHARS}+)*[.]` : ''}${rest}$`);
}

/** How the agent reads patterns: whether a leading `**.` spans several labels (Cilium 1.19 and later). */
export interface ProxyDialect {
  multiLabel: boolean;
}

/** The dialect of a Cilium chart version (`1.19.8`); an unreadable version is taken as the current one. */
/** The dialect of the agent the repository's Cilium Application pins (its chart's version). */
export const ciliumDialect = (repo: Repo): ProxyDialect =>
  dialectOf(appDeployingChart(repo, 'cilium')?.sources.find((src) => src.chart === 'cilium')?.targetRevision);

export function dialectOf(version: string | undefined): ProxyDialect {
  const m = /^v?(\d+)\.(\d+)/.exec(version ?? '');
  return { multiLabel: !m || Number(m[1]) > 1 || Number(m[2]) >= 19 };
}

/** Whether the proxy lets `name` through under these rules. */
export function dnsAllows(rules: readonly DnsRule[], name: string, dialect: ProxyDialect = { multiLabel: true }): boolean {
  const n = fqdn(name);
  return rules.some(
    (r) => (r.matchName !== undefined && fqdn(r.matchName) === n) || (r.matchPattern !== undefined && patternRegex(r.matchPattern, dialect).test(n)),
  );
}

/** The names a pod in `namespace` asks for `name`, in order: the search path's, then the name itself. */
export function searchCandidates(name: string, namespace: string): string[] {
  if (name.endsWith('.')) return [name];
  const asIs = `${name}.`;
  if (name.split('.').length - 1 >= 5) return [asIs];
  return [`${name}.${namespace}.svc.${CLUSTER_DOMAIN}.`, `${name}.svc.${CLUSTER_DOMAIN}.`, `${name}.${CLUSTER_DOMAIN}.`, asIs];
}

/** A name selector (a DNS rule, a toFQDNs entry) as Cilium reads it: its name or pattern where written as text, and its path. */
function nameSelector(selector: unknown, at: Path): DnsRule {
  const { matchName, matchPattern } = obj(selector) as Obj & { matchName?: unknown; matchPattern?: unknown };
  return { ...(typeof matchName === 'string' ? { matchName } : {}), ...(typeof matchPattern === 'string' ? { matchPattern } : {}), at };
}

/** The DNS rules of a Cilium policy's egress to port 53 (what sends its pods' DNS through the proxy), each with its path. */
export function dnsRules(policy: Resource): DnsRule[] {
  return list(dig(policy.object, ['spec', 'egress'])).flatMap((rule, i) =>
    list(obj(rule).toPorts).flatMap((tp, j) =>
      (list(obj(tp).ports).some((p) => String(obj(p).port) === '53') ? list(dig(tp, ['rules', 'dns'])) : []).map((d, k) =>
        nameSelector(d, ['spec', 'egress', i, 'toPorts', j, 'rules', 'dns', k]),
      ),
    ),
  );
}

/** The toFQDNs entries of a Cilium egress rule at `at`, read as the DNS proxy's rules are (a name or a pattern), each with its path. */
export const fqdnSelectors = (rule: Obj, at: Path): DnsRule[] => list(rule.toFQDNs).map((f, j) => nameSelector(f, [...at, 'toFQDNs', j]));

/**
 * The first name the pods' resolver asks on the way to `name` that the rules refuse, if any. The search ends at the
 * first name that resolves: for a Service's name (`<service>.<namespace>.svc`) that is its cluster name, for any
 * other the name itself, after every search-path name has answered that it does not exist.
 */
export function firstRefused(
  rules: readonly DnsRule[],
  name: string,
  { namespace, dialect }: { namespace: string; dialect: ProxyDialect },
): string | undefined {
  const resolvesAt = /[.]svc$/.test(name) ? `${name}.${CLUSTER_DOMAIN}.` : undefined;
  for (const candidate of searchCandidates(name, namespace)) {
    if (!dnsAllows(rules, candidate, dialect)) return candidate;
    if (candidate === resolvesAt) return undefined;
  }
  return undefined;
}

/** A Service's name as a pod dials it (`<service>.<namespace>.svc`), standing for every in-cluster address. */
export const SERVICE_NAME_EXAMPLE = 'service.namespace.svc';
