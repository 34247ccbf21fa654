/**
 * The Kubernetes CEL libraries (k8s.io/apiserver/pkg/cel/library) that CRD
 * validation rules use, on top of @bufbuild/cel's standard functions and its
 * strings extension: lists, regex, URLs, quantities, IP addresses and CIDRs.
 * A URL, quantity, IP or CIDR is carried as its validated string; the
 * methods take that string, so a rule reads exactly as it would in the API
 * server.
 */
import { stringCostFunctions } from './string-costs.ts';
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
import { escapedPath, GoURLError, hostname, parseRequestURI, parseURL, port, query, type GoURL } from './go-url.ts';
import { formatFunctions } from './format.ts';
import { optionalFunctions } from './optional.ts';
import { optionalSyntaxFunctions } from './optional-syntax.ts';

type Cel = typeof import('@bufbuild/cel');

/** A URL as Kubernetes' url() reads it: accepted by Go's url.ParseRequestURI, read by url.Parse (go-url.ts); undefined where Go refuses it. */
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

/**
 * A semantic version is carried as its canonical text behind a private-use marker, so that the methods it shares
 * with quantities (compareTo, isGreaterThan, isLessThan) know which one they are called on.
 */
const SEMVER_MARK = '\uE000semver:';
const isSemverValue = (s: string) => s.startsWith(SEMVER_MARK);
const semverValue = (s: string): Semver =>
  (isSemverValue(s) ? parseSemver(s.slice(SEMVER_MARK.length)) : undefined) ?? fail('no such overload: expected a semver');

/** Kubernetes' semver library (1.33). */
function semverFunctions(cel: Cel): CelFunc[] {
  const { celFunc, celMethod } = cel;
  const { S, B, I } = types(cel);
  const parse = (s: string, normalize: boolean) => (normalize ? parseSemverNormalized(s) : parseSemver(s));
  const make = (s: string, normalize: boolean) => {
    const v = parse(s, normalize);
    return v ? SEMVER_MARK + formatSemver(v) : fail(`Invalid character(s) found in version "${s}"`);
  };
  return ([] = [
    celFunc('isSemver', [S], B, (s) => parseSemver(s) !== undefined),
    celFunc('isSemver', [S, B], B, (s, normalize) => parse(s, normalize) !== undefined),
    celFunc('semver', [S], S, (s) => make(s, false)),
    celFunc('semver', [S, B], S, (s, normalize) => make(s, normalize)),
    celMethod('major', S, [], I, function () {
      return semverValue(this).major;
    }),
    celMethod('minor', S, [], I, function () {
      return semverValue(this).minor;
    }),
    celMethod('patch', S, [], I, function () {
      return semverValue(this).patch;
    }),
  ]);
}

/** jsonpatch.escapeKey (1.32): a map key as a JSON Pointer segment. */
function jsonPatchFunctions(cel: Cel): CelFunc[] {
  const { S } = types(cel);
  return [cel.celFunc('jsonpatch.escapeKey', [S], S, (s) => s.replaceAll('~', '~0').replaceAll('/', '~1'))];
}

/** Kubernetes' URL library. */
function urlFunctions(cel: Cel): CelFunc[] {
  const { celFunc, celMethod } = cel;
  const { S, B } = types(cel);
  return ([] = [
    celFunc('isURL', [S], B, (s) => goURL(s) !== undefined),
    celFunc('url', [S], S, (s) => (goURL(s) ? s : fail(`URL parse error during conversion from string: ${s}`))),
    celMethod('getScheme', S, [], S, function () {
      return goURL(this)?.scheme ?? '';
    }),
    celMethod('getHost', S, [], S, function () {
      return goURL(this)?.host ?? '';
    }),
    celMethod('getHostname', S, [], S, function () {
      const u = goURL(this);
      return u ? hostname(u) : '';
    }),
    celMethod('getPort', S, [], S, function () {
      const u = goURL(this);
      return u ? port(u) : '';
    }),
    celMethod('getEscapedPath', S, [], S, function () {
      const u = goURL(this);
      return u ? escapedPath(u) : '';
    }),
    celMethod('getQuery', S, [], cel.mapType(S, cel.listType(S)), function () {
      const u = goURL(this);
      return u ? query(u) : new Map<string, string[]>();
    }),
  ]);
}

/** Kubernetes' quantity library. */
function quantityFunctions(cel: Cel): CelFunc[] {
  const { celFunc, celMethod } = cel;
  const { S, B, I, D } = types(cel);
  // A quantity is carried as its exact value in one normal form (quantity.ts): equal values are equal strings.
  const exact = (s: string) => parseExact(s) ?? fail(`quantities must match the regular expression: ${s}`);
  const integer = (q: Exact) => asInt64(q) ?? fail('cannot convert value to integer');
  const intQuantity = (n: bigint): Exact => ({ digits: n, exponent: 0 });
  const compare = (a: string, b: string): number => (isSemverValue(a) ? compareSemver(semverValue(a), semverValue(b)) : compareExact(exact(a), exact(b)));
  return ([] = [
    celFunc('isQuantity', [S], B, (s) => parseExact(s) !== undefined),
    celFunc('quantity', [S], S, (s) => formatExact(exact(s))),
    celMethod('sign', S, [], I, function () {
      return BigInt(Math.sign(compareExact(exact(this), intQuantity(0n))));
    }),
    celMethod('isInteger', S, [], B, function () {
      return asInt64(exact(this)) !== undefined;
    }),
    celMethod('asInteger', S, [], I, function () {
      return integer(exact(this));
    }),
    celMethod('asApproximateFloat', S, [], D, function () {
      return asFloat(exact(this));
    }),
    // Quantities and semantic versions share these three methods; a version carries its own marker (semverOf).
    celMethod('compareTo', S, [S], I, function (other) {
      return BigInt(compare(this, other));
    }),
    celMethod('isGreaterThan', S, [S], B, function (other) {
      return compare(this, other) > 0;
    }),
    celMethod('isLessThan', S, [S], B, function (other) {
      return compare(this, other) < 0;
    }),
    celMethod('add', S, [S], S, function (other) {
      return formatExact(addExact(exact(this), exact(other)));
    }),
    celMethod('add', S, [I], S, function (n) {
      return formatExact(addExact(exact(this), intQuantity(n)));
    }),
    celMethod('sub', S, [S], S, function (other) {
      return formatExact(addExact(exact(this), negate(exact(other))));
    }),
    celMethod('sub', S, [I], S, function (n) {
      return formatExact(addExact(exact(this), intQuantity(-n)));
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
