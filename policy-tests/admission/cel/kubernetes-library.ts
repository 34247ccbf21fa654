/**
 * The Kubernetes CEL libraries (k8s.io/apiserver/pkg/cel/library) that CRD
 * validation rules use, on top of @bufbuild/cel's standard functions and its
 * strings extension: lists, regex, URLs, quantities, IP addresses and CIDRs.
 * A URL, quantity, IP or CIDR is carried as its validated string; the
 * methods take that string, so a rule reads exactly as it would in the API
 * server.
 */
import { stringCostFunctions, stringFormatFunctions } from './string-costs.ts';
import type { CelFunc, CelType } from '@bufbuild/cel';
import { re2 } from '../../model/core/re2.ts';
import { celEquals, compare, fail, isSeconds, items, type Seconds } from './values.ts';
import { addExact, asFloat, asInt64, compareExact, formatExact, negate, parseExact, type Exact } from './quantity.ts';
import { compareSemver, formatSemver, parseSemver, parseSemverNormalized, type Semver } from './semver.ts';
import { containsCIDR, containsIP, formatCIDR, formatIP, ipPredicates, masked, parseCIDR, parseIP } from './net.ts';
import { authorizerFunctions } from './authorizer.ts';
import { collectionFunctions } from './collections.ts';
import { listTypeFunctions } from './list-types.ts';
import { elementTypeOf } from './budget.ts';
import { twoVariableFunctions } from './two-variable.ts';
import { opaque, opaqueText, opaqueType } from './opaque-types.ts';
import { escapedPath, GoURLError, hostname, parseRequestURI, parseURL, port, query, type GoURL } from '../../model/go/url.ts';
import { formatFunctions } from './format.ts';
import { optionalFunctions } from './optional.ts';
import { optionalSyntaxFunctions } from './optional-syntax.ts';

type Cel = typeof import('@bufbuild/cel');

/** A URL as Kubernetes' url() reads it: accepted by Go's url.ParseRequestURI, read by url.Parse (model/go/url.ts); undefined where Go refuses it. */
function goURL(text: string): GoURL | undefined {
  try {
    parseRequestURI(text);
    return parseURL(text);
  } catch (err) {
    if (err instanceof GoURLError) return undefined;
    throw err;
  }
}

/** The scalar types the added functions are declared with. */
function types(cel: Cel) {
  const { CelScalar, listType } = cel;
  return { S: CelScalar.STRING, B: CelScalar.BOOL, I: CelScalar.INT, D: CelScalar.DOUBLE, DYN: CelScalar.DYN, LIST: listType(CelScalar.DYN) };
}

/** Kubernetes' list library: isSorted, sum, min, max, indexOf, lastIndexOf. */
function listFunctions(cel: Cel): CelFunc[] {
  const { celMethod } = cel;
  const { B, I, DYN, LIST } = types(cel);
  return ([] = [
    celMethod('isSorted', LIST, [], B, function () {
      const xs = items(this);
      return xs.every((x, i) => i === 0 || compare(xs[i - 1], x) <= 0);
    }),
    celMethod('sum', LIST, [], DYN, function () {
      const xs = items(this);
      // An empty list sums to the zero of its declared element type: 0, 0.0, or a zero duration.
      if (xs.length === 0) {
        const element = elementTypeOf(this);
        if (element?.format === 'duration') return cel.run("duration('0s')", {}) as bigint;
        return (element?.type === 'number' ? 0 : 0n) as bigint;
      }
      // Durations sum to a duration, made by the engine from its seconds (cel-go sums a list of durations so).
      if (xs.every((x) => isSeconds(x) && (x as Seconds).message.$typeName === 'google.protobuf.Duration')) {
        const nanos = xs.reduce((n: bigint, x) => n + (x as Seconds).message.seconds * 1_000_000_000n + BigInt((x as Seconds).message.nanos), 0n);
        return cel.run('duration(s)', { s: `${nanos / 1_000_000_000n}.${(nanos % 1_000_000_000n).toString().padStart(9, '0')}s` }) as bigint;
      }
      return xs.reduce((a: any, b: any) => (typeof a === 'bigint' && typeof b === 'bigint' ? a + b : Number(a) + Number(b))) as bigint;
    }),
    celMethod('min', LIST, [], DYN, function () {
      const xs = items(this);
      return (xs.length ? xs.reduce((a, b) => (compare(a, b) <= 0 ? a : b)) : fail('min called on empty list')) as bigint;
    }),
    celMethod('max', LIST, [], DYN, function () {
      const xs = items(this);
      return (xs.length ? xs.reduce((a, b) => (compare(a, b) >= 0 ? a : b)) : fail('max called on empty list')) as bigint;
    }),
    celMethod('indexOf', LIST, [DYN], I, function (x) {
      return BigInt(items(this).findIndex((y) => celEquals(y, x)));
    }),
    celMethod('lastIndexOf', LIST, [DYN], I, function (x) {
      const xs = items(this);
      for (let i = xs.length - 1; i >= 0; i--) if (celEquals(xs[i], x)) return BigInt(i);
      return -1n;
    }),
  ]);
}

/** Every leftmost-first match, as Go's FindAllString gives them (an empty match just after a match is skipped). */
function allMatches(text: string, pattern: string, n: number): string[] {
  const out: string[] = [];
  const m = re2(pattern).matcher(text);
  let lastEnd = -1;
  while ((n < 0 || out.length < n) && m.find()) {
    if (m.start() === m.end() && m.start() === lastEnd) continue;
    out.push(m.group() ?? '');
    lastEnd = m.end();
  }
  return out;
}

/** Kubernetes' regex library: find and findAll, with RE2 (a JavaScript RegExp backtracks: ^(a+)+$ runs for minutes). */
function regexFunctions(cel: Cel): CelFunc[] {
  const { celMethod, listType } = cel;
  const { S, I } = types(cel);
  return ([] = [
    celMethod('find', S, [S], S, function (pattern) {
      return allMatches(this, pattern, 1)[0] ?? '';
    }),
    celMethod('findAll', S, [S], listType(S), function (pattern) {
      return allMatches(this, pattern, -1);
    }),
    celMethod('findAll', S, [S, I], listType(S), function (pattern, n) {
      return allMatches(this, pattern, Number(n < 0n ? -1n : n));
    }),
  ]);
}

/** Kubernetes' semver library (1.33): a version is a kubernetes.Semver carrying its canonical text. */
function semverFunctions(cel: Cel): CelFunc[] {
  const { celFunc, celMethod, objectType } = cel;
  const { S, B, I } = types(cel);
  const V = objectType(opaqueType('kubernetes.Semver'));
  const parse = (s: string, normalize: boolean) => (normalize ? parseSemverNormalized(s) : parseSemver(s));
  const make = (s: string, normalize: boolean) => {
    const v = parse(s, normalize);
    return (v ? opaque('kubernetes.Semver', formatSemver(v)) : fail(`Invalid character(s) found in version "${s}"`)) as never;
  };
  const version = (v: unknown): Semver => parseSemver(opaqueText(v, 'kubernetes.Semver') ?? fail('no such overload: expected a semver'))!;
  const compare = (a: unknown, b: unknown) => compareSemver(version(a), version(b));
  return ([] = [
    celFunc('isSemver', [S], B, (s) => parseSemver(s) !== undefined),
    celFunc('isSemver', [S, B], B, (s, normalize) => parse(s, normalize) !== undefined),
    celFunc('semver', [S], V, (s) => make(s, false)),
    celFunc('semver', [S, B], V, (s, normalize) => make(s, normalize)),
    celMethod('major', V, [], I, function () {
      return version(this).major;
    }),
    celMethod('minor', V, [], I, function () {
      return version(this).minor;
    }),
    celMethod('patch', V, [], I, function () {
      return version(this).patch;
    }),
    celMethod('compareTo', V, [V], I, function (other) {
      return BigInt(compare(this, other));
    }),
    celMethod('isGreaterThan', V, [V], B, function (other) {
      return compare(this, other) > 0;
    }),
    celMethod('isLessThan', V, [V], B, function (other) {
      return compare(this, other) < 0;
    }),
  ]);
}

/** jsonpatch.escapeKey (1.32): a map key as a JSON Pointer segment. */
function jsonPatchFunctions(cel: Cel): CelFunc[] {
  const { S } = types(cel);
  return [cel.celFunc('jsonpatch.escapeKey', [S], S, (s) => s.replaceAll('~', '~0').replaceAll('/', '~1'))];
}

/** Kubernetes' URL library: a URL is a kubernetes.URL carrying the text url() accepted. */
function urlFunctions(cel: Cel): CelFunc[] {
  const { celFunc, celMethod, objectType } = cel;
  const { S, B } = types(cel);
  const U = objectType(opaqueType('kubernetes.URL'));
  const read = (v: unknown): GoURL => goURL(opaqueText(v, 'kubernetes.URL') ?? fail('no such overload: expected a URL')) ?? fail('not a URL');
  return ([] = [
    celFunc('isURL', [S], B, (s) => goURL(s) !== undefined),
    celFunc('url', [S], U, (s) => (goURL(s) ? opaque('kubernetes.URL', s) : fail(`URL parse error during conversion from string: ${s}`)) as never),
    celMethod('getScheme', U, [], S, function () {
      return read(this).scheme;
    }),
    celMethod('getHost', U, [], S, function () {
      return read(this).host;
    }),
    celMethod('getHostname', U, [], S, function () {
      return hostname(read(this));
    }),
    celMethod('getPort', U, [], S, function () {
      return port(read(this));
    }),
    celMethod('getEscapedPath', U, [], S, function () {
      return escapedPath(read(this));
    }),
    celMethod('getQuery', U, [], cel.mapType(S, cel.listType(S)), function () {
      return query(read(this));
    }),
  ]);
}

/** Kubernetes' quantity library: a quantity is a kubernetes.Quantity carrying its exact value in one normal form (quantity.ts). */
function quantityFunctions(cel: Cel): CelFunc[] {
  const { celFunc, celMethod, objectType } = cel;
  const { S, B, I, D } = types(cel);
  const Q = objectType(opaqueType('kubernetes.Quantity'));
  const exact = (s: string) => parseExact(s) ?? fail(`quantities must match the regular expression: ${s}`);
  const value = (v: unknown) => exact(opaqueText(v, 'kubernetes.Quantity') ?? fail('no such overload: expected a quantity'));
  const quantity = (q: Exact) => opaque('kubernetes.Quantity', formatExact(q)) as never;
  const integer = (q: Exact) => asInt64(q) ?? fail('cannot convert value to integer');
  const intQuantity = (n: bigint): Exact => ({ digits: n, exponent: 0 });
  return ([] = [
    celFunc('isQuantity', [S], B, (s) => parseExact(s) !== undefined),
    celFunc('quantity', [S], Q, (s) => quantity(exact(s))),
    celMethod('sign', Q, [], I, function () {
      return BigInt(Math.sign(compareExact(value(this), intQuantity(0n))));
    }),
    celMethod('isInteger', Q, [], B, function () {
      return asInt64(value(this)) !== undefined;
    }),
    celMethod('asInteger', Q, [], I, function () {
      return integer(value(this));
    }),
    celMethod('asApproximateFloat', Q, [], D, function () {
      return asFloat(value(this));
    }),
    celMethod('compareTo', Q, [Q], I, function (other) {
      return BigInt(compareExact(value(this), value(other)));
    }),
    celMethod('isGreaterThan', Q, [Q], B, function (other) {
      return compareExact(value(this), value(other)) > 0;
    }),
    celMethod('isLessThan', Q, [Q], B, function (other) {
      return compareExact(value(this), value(other)) < 0;
    }),
    celMethod('add', Q, [Q], Q, function (other) {
      return quantity(addExact(value(this), value(other)));
    }),
    celMethod('add', Q, [I], Q, function (n) {
      return quantity(addExact(value(this), intQuantity(n)));
    }),
    celMethod('sub', Q, [Q], Q, function (other) {
      return quantity(addExact(value(this), negate(value(other))));
    }),
    celMethod('sub', Q, [I], Q, function (n) {
      return quantity(addExact(value(this), intQuantity(-n)));
    }),
  ]);
}

/**
 * Kubernetes' IP and CIDR libraries, over values of their own types (opaque-types.ts: net.IP, net.CIDR), each
 * carrying its canonical text. containsIP and containsCIDR take the typed value or its text, as the library does.
 */
function networkFunctions(cel: Cel): CelFunc[] {
  const { celFunc, celMethod, objectType } = cel;
  const { S, B, I } = types(cel);
  const [IP, CIDR] = [objectType(opaqueType('net.IP')), objectType(opaqueType('net.CIDR'))];
  const ipOf = (s: string) => parseIP(s) ?? fail(`IP Address '${s}' parse error during conversion from string`);
  const cidrOf = (s: string) => parseCIDR(s) ?? fail(`network address parse error during conversion from string: ${s}`);
  const ipText = (v: unknown) => opaqueText(v, 'net.IP') ?? fail('no such overload: expected a net.IP');
  const cidrText = (v: unknown) => opaqueText(v, 'net.CIDR') ?? fail('no such overload: expected a net.CIDR');
  const ip = (s: string) => opaque('net.IP', formatIP(ipOf(s))) as never;
  const cidr = (s: string) => opaque('net.CIDR', formatCIDR(cidrOf(s))) as never;
  const predicates = Object.entries(ipPredicates).map(([name, test]) =>
    celMethod(name, IP, [], B, function () {
      return test(ipOf(ipText(this)));
    }),
  );
  return ([] = [
    celFunc('isIP', [S], B, (s) => parseIP(s) !== undefined),
    celFunc('ip', [S], IP, ip),
    celFunc('ip.isCanonical', [S], B, (s) => formatIP(ipOf(s)) === s),
    celFunc('isCIDR', [S], B, (s) => parseCIDR(s) !== undefined),
    celFunc('cidr', [S], CIDR, cidr),
    celFunc('string', [IP], S, (v) => ipText(v)),
    celFunc('string', [CIDR], S, (v) => cidrText(v)),
    celMethod('family', IP, [], I, function () {
      return BigInt(ipOf(ipText(this)).family);
    }),
    ...predicates,
    celMethod('prefixLength', CIDR, [], I, function () {
      return BigInt(cidrOf(cidrText(this)).bits);
    }),
    celMethod('ip', CIDR, [], IP, function () {
      return opaque('net.IP', formatIP(cidrOf(cidrText(this)).ip)) as never;
    }),
    celMethod('masked', CIDR, [], CIDR, function () {
      return opaque('net.CIDR', formatCIDR(masked(cidrOf(cidrText(this))))) as never;
    }),
    celMethod('containsIP', CIDR, [S], B, function (other) {
      return containsIP(cidrOf(cidrText(this)), ipOf(other));
    }),
    celMethod('containsIP', CIDR, [IP], B, function (other) {
      return containsIP(cidrOf(cidrText(this)), ipOf(ipText(other)));
    }),
    celMethod('containsCIDR', CIDR, [S], B, function (other) {
      return containsCIDR(cidrOf(cidrText(this)), cidrOf(other));
    }),
    celMethod('containsCIDR', CIDR, [CIDR], B, function (other) {
      return containsCIDR(cidrOf(cidrText(this)), cidrOf(cidrText(other)));
    }),
  ]);
}

/**
 * The functions this evaluator adds to CEL's standard ones: the strings
 * extension and the Kubernetes libraries, built on the CEL runtime given
 * (loaded only when a rule is first compiled, so a gate run with no rule to
 * judge never loads it).
 */
export function kubernetesFunctions(cel: Cel, strings: readonly CelFunc[], duration: CelType): CelFunc[] {
  return [
    ...strings,
    // The strings extension's replace, linear and charged to the runtime cost (same overload ids).
    ...stringCostFunctions(cel),
    // Its format, with %e as cel-go prints it (same overload id).
    ...stringFormatFunctions(cel, strings),
    // Replace the standard concatenation and equality (same overload ids): linear, and aware of set and map lists.
    ...listTypeFunctions(cel),
    ...listFunctions(cel),
    ...regexFunctions(cel),
    ...urlFunctions(cel),
    ...quantityFunctions(cel),
    ...networkFunctions(cel),
    ...semverFunctions(cel),
    ...jsonPatchFunctions(cel),
    ...optionalFunctions(cel),
    ...optionalSyntaxFunctions(cel),
    ...formatFunctions(cel),
    ...authorizerFunctions(cel),
    ...twoVariableFunctions(cel),
    ...collectionFunctions(cel),
    // cel-go's getMilliseconds on a duration is the whole duration in milliseconds; the engine's gives only its fraction.
    cel.celMethod('getMilliseconds', duration, [], types(cel).I, function () {
      const d = (this as unknown as { message: { seconds: bigint; nanos: number } }).message;
      return d.seconds * 1000n + BigInt(Math.trunc(d.nanos / 1_000_000));
    }),
  ];
}

/**
 * Functions, methods and operators a rule may call: CEL's standard
 * definitions, the macros' internal calls, and the added ones. A rule that
 * calls anything else is not judged.
 */
export function knownFunctions(added: readonly CelFunc[]): Set<string> {
  return new Set([
    ...[
      '_+_',
      '_-_',
      '_*_',
      '_/_',
      '_%_',
      '_==_',
      '_!=_',
      '_<_',
      '_<=_',
      '_>_',
      '_>=_',
      '_&&_',
      '_||_',
      '!_',
      '-_',
      '_?_:_',
      '_[_]',
      '@in',
      '@not_strictly_false',
      '@not',
    ],
    ...['size', 'matches', 'startsWith', 'endsWith', 'contains', 'int', 'uint', 'double', 'string', 'bytes', 'bool', 'duration', 'timestamp', 'type', 'dyn'],
    ...['getFullYear', 'getMonth', 'getDayOfYear', 'getDayOfMonth', 'getDate', 'getDayOfWeek', 'getHours', 'getMinutes', 'getSeconds', 'getMilliseconds'],
    ...added.map((f) => f.name),
  ]);
}
