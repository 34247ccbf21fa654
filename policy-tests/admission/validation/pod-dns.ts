/**
 * validatePodDNSConfig (k8s.io/kubernetes pkg/apis/core/validation): the pod's DNS policy and its resolver
 * settings, which the kubelet writes into every container's resolv.conf. Search paths follow the cluster's
 * RelaxedDNSSearchValidation gate (feature-gates.ts), as pkg/apis/core/validation reads them at v1.36.
 */
import type { PathSegment } from '../../model/core/positions.ts';
import type { ValidationFeatures } from './feature-gates.ts';
import type { Invalid } from './metadata.ts';
import { dns1123Subdomain, dns1123SubdomainWithUnderscore, isSloppyIP } from './syntax.ts';

type Obj = Record<string, any>;

const MAX_NAMESERVERS = 3;
const MAX_SEARCH_PATHS = 32;
const MAX_SEARCH_LIST_CHARS = 2048;
const FN = 'validatePodDNSConfig';

/**
 * One search path, as validatePodDNSConfig reads it: a trailing '.' dropped, then a DNS-1123 subdomain; under the
 * relaxed gate a lone '.' passes as it is, and each label may start with one '_' and hold '_' where '-' may be
 * (IsDNS1123SubdomainWithUnderscore).
 */
function searchProblem(search: string, at: PathSegment[], relaxed: boolean): Invalid | undefined {
  if (relaxed && search === '.') return undefined;
  const name = search.endsWith('.') ? search.slice(0, -1) : search;
  const problem = relaxed ? dns1123SubdomainWithUnderscore(name) : dns1123Subdomain(name);
  if (!problem) return undefined;
  return {
    path: at,
    fn: `${FN} (${relaxed ? 'ValidateDNS1123SubdomainWithUnderScore' : 'ValidateDNS1123Subdomain'})`,
    message: `dnsConfig search "${search}": ${problem}`,
  };
}

/** The DNS policy and config of a pod spec at `at`. */
export function dnsProblems(spec: Obj, at: PathSegment[], features: ValidationFeatures): Invalid[] {
  const out: Invalid[] = [];
  const config = spec.dnsConfig as Obj | undefined;
  if (spec.dnsPolicy === 'None') {
    if (!config || typeof config !== 'object') return [{ path: [...at, 'dnsPolicy'], fn: FN, message: 'must provide `dnsConfig` when `dnsPolicy` is None' }];
    if (!Array.isArray(config.nameservers) || config.nameservers.length === 0)
      return [{ path: [...at, 'dnsConfig'], fn: FN, message: 'dnsConfig.nameservers: must provide at least one DNS nameserver when `dnsPolicy` is None' }];
  }
  if (!config || typeof config !== 'object') return out;
  const here = [...at, 'dnsConfig'];
  const nameservers = Array.isArray(config.nameservers) ? (config.nameservers as unknown[]) : [];
  if (nameservers.length > MAX_NAMESERVERS)
    out.push({ path: [...here, 'nameservers'], fn: FN, message: `dnsConfig.nameservers: must not have more than ${MAX_NAMESERVERS} nameservers` });
  nameservers.forEach((ns, i) => {
    if (typeof ns === 'string' && !isSloppyIP(ns))
      out.push({
        path: [...here, 'nameservers', i],
        fn: `${FN} (IsValidIP)`,
        message: `dnsConfig nameserver "${ns}": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
      });
  });
  const searches = Array.isArray(config.searches) ? (config.searches as unknown[]).filter((s): s is string => typeof s === 'string') : [];
  if (searches.length > MAX_SEARCH_PATHS)
    out.push({ path: [...here, 'searches'], fn: FN, message: `dnsConfig.searches: must not have more than ${MAX_SEARCH_PATHS} search paths` });
  if (searches.join(' ').length > MAX_SEARCH_LIST_CHARS)
    out.push({
      path: [...here, 'searches'],
      fn: FN,
      message: `dnsConfig.searches: must not have more than ${MAX_SEARCH_LIST_CHARS} characters (including spaces) in the search list`,
    });
  const relaxed = features.has('RelaxedDNSSearchValidation');
  searches.forEach((search, i) => {
    const problem = searchProblem(search, [...here, 'searches', i], relaxed);
    if (problem) out.push(problem);
  });
  ((Array.isArray(config.options) ? config.options : []) as Obj[]).forEach((option, i) => {
    if (!option || typeof option.name !== 'string' || option.name === '')
      out.push({ path: [...here, 'options', i], fn: FN, message: 'dnsConfig.options: an option name must not be empty' });
  });
  return out;
}
