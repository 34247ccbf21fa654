/**
 * What cert-manager's webhook refuses of an ACME DNS-01 solver (v1.21.1, `ValidateACMEChallengeSolverDNS01`): one
 * provider, in upstream's order, each with the Secrets and fields it needs. Akamai and acme-dns are counted without
 * the "more than one provider" refusal, as upstream counts them, so a solver naming one of them beside another is
 * refused at the other.
 */
import { splitHostPort } from '../../model/go/net.ts';
import type { Invalid } from '../validation/metadata.ts';
import { error, isSet, obj, secretKeySelectorProblems, text, type Obj, type Path } from './issuer-fields.ts';

const e = error('ValidateACMEChallengeSolverDNS01');
const required = (at: Path, ...fields: string[]) => e.required([...at, ...fields]);

/** The refusals of one provider's block, given where it is. */
type Provider = (p: Obj, at: Path) => Invalid[];

const akamai: Provider = (p, at) => [
  ...secretKeySelectorProblems(p.accessTokenSecretRef, [...at, 'accessToken']),
  ...secretKeySelectorProblems(p.clientSecretSecretRef, [...at, 'clientSecret']),
  ...secretKeySelectorProblems(p.clientTokenSecretRef, [...at, 'clientToken']),
  ...(text(p.serviceConsumerDomain) === '' ? [required(at, 'serviceConsumerDomain')] : []),
];

const AZURE_ENVIRONMENTS = ['', 'AzurePublicCloud', 'AzureChinaCloud', 'AzureGermanCloud', 'AzureUSGovernmentCloud'];

const azureDNS: Provider = (p, at) => {
  const out: Invalid[] = [];
  const identity = obj(p.managedIdentity);
  if (text(p.clientID) !== '' || text(p.tenantID) !== '' || isSet(p.clientSecretSecretRef)) {
    if (text(p.clientID) === '') out.push(required(at, 'clientID'));
    if (!isSet(p.clientSecretSecretRef)) out.push(required(at, 'clientSecretSecretRef'));
    else out.push(...secretKeySelectorProblems(p.clientSecretSecretRef, [...at, 'clientSecretSecretRef']));
    if (text(p.tenantID) === '') out.push(required(at, 'tenantID'));
    if (isSet(p.managedIdentity))
      out.push(e.forbidden([...at, 'managedIdentity'], 'managed identity cannot be used at the same time as clientID, clientSecretSecretRef or tenantID'));
  } else if (isSet(p.managedIdentity)) {
    const [client, resource, tenant] = [text(identity.clientID), text(identity.resourceID), text(identity.tenantID)];
    if (client && resource) out.push(e.forbidden([...at, 'managedIdentity'], 'managedIdentityClientID and managedIdentityResourceID cannot both be specified'));
    if (tenant && resource) out.push(e.forbidden([...at, 'managedIdentity'], 'managedIdentityTenantID and managedIdentityResourceID cannot both be specified'));
    if (tenant && !client) out.push(e.required([...at, 'managedIdentity'], 'managedIdentityClientID is required when using managedIdentityTenantID'));
  }
  if (text(p.subscriptionID) === '') out.push(required(at, 'subscriptionID'));
  if (text(p.resourceGroupName) === '') out.push(required(at, 'resourceGroupName'));
  if (!AZURE_ENVIRONMENTS.includes(text(p.environment)))
    out.push(
      e.invalid(
        [...at, 'environment'],
        text(p.environment),
        'must be either empty or one of AzurePublicCloud, AzureChinaCloud, AzureGermanCloud, or AzureUSGovernmentCloud',
      ),
    );
  return out;
};

const cloudDNS: Provider = (p, at) => [
  ...(isSet(p.serviceAccountSecretRef) ? secretKeySelectorProblems(p.serviceAccountSecretRef, [...at, 'serviceAccountSecretRef']) : []),
  ...(text(p.project) === '' ? [required(at, 'project')] : []),
];

const cloudflare: Provider = (p, at) => {
  const [key, token] = [isSet(p.apiKeySecretRef), isSet(p.apiTokenSecretRef)];
  return [
    ...(key ? secretKeySelectorProblems(p.apiKeySecretRef, [...at, 'apiKeySecretRef']) : []),
    ...(token ? secretKeySelectorProblems(p.apiTokenSecretRef, [...at, 'apiTokenSecretRef']) : []),
    ...(key && token ? [e.forbidden(at, 'apiKeySecretRef and apiTokenSecretRef cannot both be specified')] : []),
    ...(!key && !token ? [e.required(at, 'apiKeySecretRef or apiTokenSecretRef is required')] : []),
    ...(key && text(p.email) === '' ? [required(at, 'email')] : []),
  ];
};

// Neither key is required: Route 53 may take the pod's ambient credentials.
const route53: Provider = (p, at) => [
  ...(text(p.accessKeyID) !== '' && isSet(p.accessKeyIDSecretRef) ? [e.required(at, 'accessKeyID and accessKeyIDSecretRef cannot both be specified')] : []),
  ...(isSet(p.accessKeyIDSecretRef) ? secretKeySelectorProblems(p.accessKeyIDSecretRef, [...at, 'accessKeyIDSecretRef']) : []),
];

const acmeDNS: Provider = (p, at) => [
  ...secretKeySelectorProblems(p.accountSecretRef, [...at, 'accountSecretRef']),
  ...(text(p.host) === '' ? [required(at, 'host')] : []),
];

const digitalocean: Provider = (p, at) => secretKeySelectorProblems(p.tokenSecretRef, [...at, 'tokenSecretRef']);

/** pkg/issuer/acme/dns/rfc2136's algorithms, matched without case. */
const TSIG_ALGORITHMS = ['HMACMD5', 'HMACSHA1', 'HMACSHA256', 'HMACSHA512'];

const rfc2136: Provider = (p, at) => {
  const out: Invalid[] = [];
  const nameserver = text(p.nameserver);
  if (nameserver === '') out.push(required(at, 'nameserver'));
  else if (!validNameserver(nameserver))
    out.push(
      e.invalid(
        [...at, 'nameserver'],
        nameserver,
        'nameserver must be set in the form host:port where host is an IPv4 address, an enclosed IPv6 address or a hostname and port is an optional port number.',
      ),
    );
  if (text(p.tsigAlgorithm) !== '' && !TSIG_ALGORITHMS.includes(text(p.tsigAlgorithm).toUpperCase()))
    // Upstream names the empty value, not the one given.
    out.push(e.notSupported([...at, 'tsigAlgorithm'], '', TSIG_ALGORITHMS));
  const secret = secretKeySelectorProblems(p.tsigSecretSecretRef, [...at, 'tsigSecretSecretRef']);
  if (text(p.tsigKeyName) !== '') out.push(...secret);
  // A complete TSIG secret needs its key's name; upstream asks for it only then.
  if (secret.length === 0 && text(p.tsigKeyName) === '') out.push(required(at, 'tsigKeyName'));
  return out;
};

const webhook: Provider = (p, at) => (text(p.solverName) === '' ? [e.required([...at, 'solverName'], 'solver name must be specified')] : []);

/** Upstream's order, and whether a provider is refused when one came before it. */
const PROVIDERS: ReadonlyArray<readonly [string, Provider, boolean]> = [
  ['akamai', akamai, false],
  ['azureDNS', azureDNS, true],
  ['cloudDNS', cloudDNS, true],
  ['cloudflare', cloudflare, true],
  ['route53', route53, true],
  ['acmeDNS', acmeDNS, false],
  ['digitalocean', digitalocean, true],
  ['rfc2136', rfc2136, true],
  ['webhook', webhook, true],
];

export function dns01Problems(dns01: unknown, at: Path): Invalid[] {
  const d = obj(dns01);
  const out: Invalid[] = [];
  const strategy = text(d.cnameStrategy);
  if (strategy !== '' && strategy !== 'None' && strategy !== 'Follow')
    out.push(e.invalid([...at, 'cnameStrategy'], strategy, 'must be one of "None" or "Follow"'));
  let providers = 0;
  for (const [name, judge, exclusive] of PROVIDERS) {
    if (!isSet(d[name])) continue;
    if (exclusive && providers > 0) out.push(e.forbidden([...at, name], 'may not specify more than one provider type'));
    else out.push(...judge(obj(d[name]), [...at, name]));
    providers++;
  }
  if (providers === 0) out.push(e.required(at, 'no DNS01 provider configured'));
  return out;
}

/** util.ValidNameserver: host:port, a bare host, or a bracketed IPv6 address, with a host. */
export function validNameserver(nameserver: string): boolean {
  const trimmed = nameserver.trim();
  if (trimmed === '') return false;
  const split = splitHostPort(trimmed);
  if ('error' in split && !split.error.includes('missing port')) return false;
  const host = 'error' in split ? trimmed.replace(/^[[\]]+|[[\]]+$/g, '') : split.host;
  return host !== '';
}
