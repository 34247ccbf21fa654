/**
 * The value syntaxes of k8s.io/apimachinery/pkg/util/validation and
 * pkg/api/resource: names, label keys and values, port names, quantities.
 * Each returns the API server's reason, or undefined when the value is valid.
 */
import { BlockList } from 'node:net';
import { cidrSloppy, isIPSloppy, isIPv4Sloppy } from '../../model/go/net.ts';
import { dns1123Subdomain } from '../../model/scheduling/label-syntax.ts';

// The label syntaxes the scheduler's selectors read too live on the model floor.
export { dns1123Subdomain, labelValue, qualifiedName } from '../../model/scheduling/label-syntax.ts';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
/** dns1123SubdomainFmtWithUnderscore: each label may start with one '_', and hold '_' where '-' may be. */
const DNS1123_SUBDOMAIN_WITH_UNDERSCORE = /^_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*$/;
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

/** IsDNS1123Label */
export function dns1123Label(v: string): string | undefined {
  if (v.length > 63) return `must be no more than 63 characters`;
  if (!DNS1123_LABEL.test(v))
    return `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`;
  return undefined;
}

/** IsDNS1035Label (Service names) */
export function dns1035Label(v: string): string | undefined {
  if (v.length > 63) return `must be no more than 63 characters`;
  if (!DNS1035_LABEL.test(v))
    return `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character`;
  return undefined;
}

/** IsDNS1123SubdomainWithUnderscore (DNS search paths under RelaxedDNSSearchValidation) */
export function dns1123SubdomainWithUnderscore(v: string): string | undefined {
  if (v.length > 253) return `must be no more than 253 characters`;
  if (!DNS1123_SUBDOMAIN_WITH_UNDERSCORE.test(v))
    return `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character`;
  return undefined;
}

/** IsValidPathSegmentName (RBAC names) */
export function pathSegmentName(v: string): string | undefined {
  if (v === '.' || v === '..') return `may not be '${v}'`;
  // IsPathSegmentPrefix: one message for each character the name holds.
  const held = ['/', '%'].filter((c) => v.includes(c));
  return held.length ? held.map((c) => `may not contain '${c}'`).join(', ') : undefined;
}

/** IsValidPortName (IANA_SVC_NAME) */
export function portName(v: string): string | undefined {
  if (v.length > 15) return 'must be no more than 15 characters';
  if (!/^[-a-z0-9]+$/.test(v)) return `must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`;
  if (!/[a-z]/.test(v)) return 'must contain at least one letter (a-z)';
  if (v.includes('--')) return `must not contain consecutive hyphens`;
  if (v.startsWith('-') || v.endsWith('-')) return 'must not begin or end with a hyphen';
  return undefined;
}

/**
 * apimachinery's maskTrailingDash, as a name that is a prefix (generateName, an envFrom name) is judged: a trailing
 * dash drops the last two characters for an `a` (Go's own quirk, kept: the character before the dash is not judged),
 * and a lone `-` stays as it is.
 */
export const maskTrailingDash = (name: string): string => (name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name);

/** IsConfigMapKey (ConfigMap and Secret keys) */
export function configMapKey(v: string): string | undefined {
  if (v.length > 253) return 'must be no more than 253 characters';
  if (!CONFIG_KEY.test(v)) return `a valid config key must consist of alphanumeric characters, '-', '_' or '.'`;
  // hasChDirPrefix: a key the kubelet would write as a path that leaves the volume's folder, or names its `..data` link.
  if (v === '.' || v === '..') return `must not be '${v}'`;
  if (v.startsWith('..')) return "must not start with '..'";
  return undefined;
}

const ENV_VAR_NAME = '[-._a-zA-Z][-._a-zA-Z0-9]*';

/**
 * An env name or envFrom prefix as the API server judges it: IsRelaxedEnvVarName (printable ASCII but '=') where the
 * cluster's RelaxedEnvironmentVariableValidation gate is on, IsEnvVarName (a C identifier that may hold '-' and '.',
 * not '.', '..' or a '..' prefix) where it is off (admission/validation/feature-gates.ts).
 */
export function envVarName(v: string, relaxed: boolean): string | undefined {
  if (v === '') return 'must not be empty';
  if (relaxed)
    return !/^[\x20-\x7e]+$/.test(v) || v.includes('=')
      ? `a valid environment variable name must consist only of printable ASCII characters other than '='`
      : undefined;
  const problems: string[] = [];
  if (!new RegExp(`^${ENV_VAR_NAME}$`).test(v))
    problems.push(
      `a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '${ENV_VAR_NAME}')`,
    );
  if (v === '.' || v === '..') problems.push(`must not be '${v}'`);
  else if (v.startsWith('..')) problems.push(`must not start with '..'`);
  return problems.length ? problems.join('; ') : undefined;
}

export function isPortNumber(v: unknown): boolean {
  return Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 65535;
}

/** A port given as a number or a name (IsValidPortNum or IsValidPortName); undefined when it is neither, which the caller judges. */
export function portNumOrNameProblem(port: unknown): string | undefined {
  if (typeof port === 'number') return isPortNumber(port) ? undefined : 'must be between 1 and 65535, inclusive';
  return typeof port === 'string' ? portName(port) : undefined;
}

/** An int-or-string that is a percentage ("25%") or a non-negative integer. */
export function intOrPercent(v: unknown): string | undefined {
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 ? undefined : 'must be a non-negative integer';
  if (typeof v === 'string') return /^[0-9]+%$/.test(v) ? undefined : `must be an integer or a percentage such as "25%"`;
  return undefined;
}

/** An IPv4 address as netutils.ParseIPSloppy reads one: four decimal parts of up to three digits, leading zeros allowed. */
/**
 * An IPv4 or IPv6 CIDR as netutils.ParseCIDRSloppy reads it (IsValidCIDRForLegacyField without StrictIPCIDRValidation,
 * which is alpha and off): an IPv4 part may carry leading zeros, and no IPv6 part a zone.
 */
export function cidr(v: string): string | undefined {
  const read = cidrSloppy(v);
  if (!('problem' in read)) return undefined;
  return read.problem === 'invalid' ? 'must be a valid CIDR value (e.g. 10.9.8.0/24 or 2001:db8::/64)' : read.problem;
}

/** An IP as netutils.ParseIPSloppy reads it (model/go/net.ts). */
export const isSloppyIP = isIPSloppy;

/** IsDomainPrefixedPath: `<DNS subdomain>/<HTTP path>`, as a Job's managedBy and an IngressClass's controller are written. */
export function domainPrefixedPath(value: string): string | undefined {
  const slash = value.indexOf('/');
  if (slash <= 0 || slash === value.length - 1) return 'must be a domain-prefixed path (such as "acme.io/foo")';
  const host = dns1123Subdomain(value.slice(0, slash));
  if (host) return host;
  return /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/.test(value.slice(slash + 1)) ? undefined : "Invalid path: must match the regex [A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
}

/** IsWildcardDNS1123Subdomain: `*.` and a DNS subdomain, at most 253 characters. */
export function wildcardSubdomain(v: string): string | undefined {
  const rest = v.startsWith('*.') ? v.slice(2) : undefined;
  if (v.length > 253) return 'must be no more than 253 characters';
  return rest !== undefined && dns1123Subdomain(rest) === undefined
    ? undefined
    : "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com')";
}

/**
 * Whether CIDR `inner` is a strict subset of CIDR `outer` (ValidateIPBlock's except): its network inside `outer` and
 * its prefix longer. Both must already be valid CIDRs.
 */
export function strictSubnet(inner: string, outer: string): boolean {
  // An IPv4 part written with leading zeros (as ParseCIDRSloppy reads it) is its decimal value.
  const plain = (ip: string) => (isIPv4Sloppy(ip) ? ip.split('.').map(Number).join('.') : ip);
  const [outerIP, outerBits] = outer.split('/').map((p, i) => (i === 0 ? plain(p) : p)) as [string, string];
  const [innerIP, innerBits] = inner.split('/').map((p, i) => (i === 0 ? plain(p) : p)) as [string, string];
  const family = (ip: string) => (ip.includes(':') ? 'ipv6' : 'ipv4');
  if (family(innerIP) !== family(outerIP) || Number(innerBits) <= Number(outerBits)) return false;
  const list = new BlockList();
  list.addSubnet(outerIP, Number(outerBits), family(outerIP));
  return list.check(innerIP, family(innerIP));
}

/** field.NotSupported's words: the value, and the values the field takes. */
export const notSupported = (value: unknown, supported: readonly string[]): string =>
  `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((v) => `"${v}"`).join(', ')}`;

/** field.TooMany's words. */
export const tooMany = (count: number, max: number): string => `Too many: ${count}: must have at most ${max} items`;

/** field.TooLong's words, for a length in bytes. */
export const tooLong = (max: number): string => `Too long: may not be more than ${max} bytes`;

/** validateLocalDescendingPath's two faults: the path is absolute, or a segment of it steps up (`..`). */
export const localPathFaults = (path: string): { absolute: boolean; backsteps: boolean } => ({
  absolute: path.startsWith('/'),
  backsteps: path.split('/').includes('..'),
});

/** validateLocalDescendingPath passes: relative, and no segment steps up. */
export const isLocalDescendingPath = (path: string): boolean => !Object.values(localPathFaults(path)).some(Boolean);

/** ValidateLocalNonReservedPath passes: a local descending path that does not start with `..` either (`..data` is the kubelet's). */
export const isLocalNonReservedPath = (path: string): boolean => isLocalDescendingPath(path) && !path.startsWith('..');
