/**
 * The Kubernetes CEL libraries (k8s.io/apiserver/pkg/cel/library) that CRD
 * validation rules use, on top of @bufbuild/cel's standard functions and its
 * strings extension: lists, regex, URLs, quantities, IP addresses and CIDRs.
 * A URL, quantity, IP or CIDR is carried as its validated string; the
 * methods take that string, so a rule reads exactly as it would in the API
 * server.
 */
import type { CelFunc } from '@bufbuild/cel';
import { parseQuantity } from '../validation/syntax.ts';

type Cel = typeof import('@bufbuild/cel');

function fail(message: string): never {
  throw new Error(message);
}

function asURL(text: string): URL | undefined {
  // url() accepts absolute URIs and absolute paths, as Go's url.ParseRequestURI does.
  try {
    return text.startsWith('/') ? new URL(text, 'http://path.invalid') : new URL(text);
  } catch {
    return undefined;
  }
}

const compare = (a: unknown, b: unknown): number => {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return fail('no such overload: lists of mixed or unordered types');
};

const items = (list: unknown): unknown[] => [...(list as Iterable<unknown>)];

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
function ipFamily(s: string): 4 | 6 | undefined {
  if (IPV4.test(s)) return 4;
  if (s.includes(':') && !s.includes('%')) {
    try {
      new URL(`http://[${s}]/`);
      return 6;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
function cidrFamily(s: string): 4 | 6 | undefined {
  const [ip, bits, extra] = s.split('/');
  if (extra !== undefined || bits === undefined || !/^\d+$/.test(bits)) return undefined;
  const family = ipFamily(ip!);
  return family && Number(bits) <= (family === 4 ? 32 : 128) ? family : undefined;
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
      if (xs.length === 0) return 0n;
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
      return BigInt(items(this).findIndex((y) => y === x));
    }),
    celMethod('lastIndexOf', LIST, [DYN], I, function (x) {
      const xs = items(this);
      for (let i = xs.length - 1; i >= 0; i--) if (xs[i] === x) return BigInt(i);
      return -1n;
    }),
  ]);
}

/** Kubernetes' regex library: find and findAll. */
function regexFunctions(cel: Cel): CelFunc[] {
  const { celMethod, listType } = cel;
  const { S, I } = types(cel);
  return ([] = [
    celMethod('find', S, [S], S, function (pattern) {
      return new RegExp(pattern).exec(this)?.[0] ?? '';
    }),
    celMethod('findAll', S, [S], listType(S), function (pattern) {
      return [...this.matchAll(new RegExp(pattern, 'g'))].map((m) => m[0]);
    }),
    celMethod('findAll', S, [S, I], listType(S), function (pattern, n) {
      const all = [...this.matchAll(new RegExp(pattern, 'g'))].map((m) => m[0]);
      return n < 0n ? all : all.slice(0, Number(n));
    }),
  ]);
}

/** Kubernetes' URL library. */
function urlFunctions(cel: Cel): CelFunc[] {
  const { celFunc, celMethod } = cel;
  const { S, B } = types(cel);
  return ([] = [
    celFunc('isURL', [S], B, (s) => asURL(s) !== undefined),
    celFunc('url', [S], S, (s) => (asURL(s) ? s : fail(`URL parse error during conversion from string: ${s}`))),
    celMethod('getScheme', S, [], S, function () {
      return (asURL(this)?.protocol ?? '').replace(/:$/, '').replace(/^http$/, this.startsWith('/') ? '' : 'http');
    }),
    celMethod('getHost', S, [], S, function () {
      return this.startsWith('/') ? '' : (asURL(this)?.host ?? '');
    }),
    celMethod('getHostname', S, [], S, function () {
      return this.startsWith('/') ? '' : (asURL(this)?.hostname.replace(/^\[|\]$/g, '') ?? '');
    }),
    celMethod('getPort', S, [], S, function () {
      return asURL(this)?.port ?? '';
    }),
    celMethod('getEscapedPath', S, [], S, function () {
      return asURL(this)?.pathname ?? '';
    }),
  ]);
}

/** Kubernetes' quantity library. */
function quantityFunctions(cel: Cel): CelFunc[] {
  const { celFunc, celMethod } = cel;
  const { S, B, I, D } = types(cel);
  return ([] = [
    celFunc('isQuantity', [S], B, (s) => parseQuantity(s) !== undefined),
    celFunc('quantity', [S], S, (s) => (parseQuantity(s) !== undefined ? s : fail(`quantities must match the regular expression: ${s}`))),
    celMethod('sign', S, [], I, function () {
      return BigInt(Math.sign(parseQuantity(this) ?? 0));
    }),
    celMethod('isInteger', S, [], B, function () {
      return Number.isInteger(parseQuantity(this));
    }),
    celMethod('asInteger', S, [], I, function () {
      const v = parseQuantity(this)!;
      return Number.isInteger(v) ? BigInt(v) : fail('cannot convert value to integer');
    }),
    celMethod('asApproximateFloat', S, [], D, function () {
      return parseQuantity(this)!;
    }),
    celMethod('compareTo', S, [S], I, function (other) {
      return BigInt(Math.sign(parseQuantity(this)! - parseQuantity(other)!));
    }),
    celMethod('isGreaterThan', S, [S], B, function (other) {
      return parseQuantity(this)! > parseQuantity(other)!;
    }),
    celMethod('isLessThan', S, [S], B, function (other) {
      return parseQuantity(this)! < parseQuantity(other)!;
    }),
  ]);
}

/** Kubernetes' IP and CIDR libraries. */
function networkFunctions(cel: Cel): CelFunc[] {
  const { celFunc, celMethod } = cel;
  const { S, B, I } = types(cel);
  return ([] = [
    celFunc('isIP', [S], B, (s) => ipFamily(s) !== undefined),
    celFunc('ip', [S], S, (s) => (ipFamily(s) ? s : fail(`IP Address '${s}' parse error during conversion from string`))),
    celFunc('isCIDR', [S], B, (s) => cidrFamily(s) !== undefined),
    celFunc('cidr', [S], S, (s) => (cidrFamily(s) ? s : fail(`network address parse error during conversion from string: ${s}`))),
    celMethod('family', S, [], I, function () {
      return BigInt(ipFamily(this) ?? cidrFamily(this) ?? fail('not an IP address or CIDR'));
    }),
    celMethod('prefixLength', S, [], I, function () {
      return BigInt(this.split('/')[1] ?? fail('not a CIDR'));
    }),
  ]);
}

/**
 * The functions this evaluator adds to CEL's standard ones: the strings
 * extension and the Kubernetes libraries, built on the CEL runtime given
 * (loaded only when a rule is first compiled, so a gate run with no rule to
 * judge never loads it).
 */
export function kubernetesFunctions(cel: Cel, strings: readonly CelFunc[]): CelFunc[] {
  return [...strings, ...listFunctions(cel), ...regexFunctions(cel), ...urlFunctions(cel), ...quantityFunctions(cel), ...networkFunctions(cel)];
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
