/**
 * What the Go libraries the blackbox exporter loads its configuration with make of a text: a field's string and
 * bool as yaml.v3 leaves them, alecthomas/units' byte sizes, net/textproto's canonical header keys, miekg/dns v1.1.68's
 * class and type names, cel-go's undeclared names, and the exporter's own check of a compression against an
 * Accept-Encoding header (config.go's isCompressionAcceptEncodingValid).
 */
import { createRequire } from 'node:module';
import { yaml11Bool } from '../yaml/yaml11.ts';
import type { Expr, ParsedExpr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';

/** A field's Go string: a scalar's text, '' where it is left out or null. */
export const text = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '');

/** A Go bool field: YAML's booleans and v3's YAML 1.1 words, else its default. */
export function bool(v: unknown, fallback: boolean): boolean {
  if (typeof v === 'boolean') return v;
  return (typeof v === 'string' ? yaml11Bool(v) : undefined) ?? fallback;
}

/** units.MakeUnitMap(suffix, "B", 1024): `B`, then K, M, G, T, P, E with the suffix. */
const byteUnits = (suffix: string): Map<string, number> =>
  new Map([['B', 1], ...['K', 'M', 'G', 'T', 'P', 'E'].map((p, i): [string, number] => [`${p}${suffix}`, 1024 ** (i + 1)])]);
const BYTES_UNITS = byteUnits('iB');
const OLD_BYTES_UNITS = byteUnits('B');

/** units.ParseUnit: `[-+]?([0-9]*(\.[0-9]*)?[a-zA-Z]+)+`, or `0`: its error, or undefined. */
function parseUnitProblem(orig: string, units: Map<string, number>): string | undefined {
  const invalid = `units: invalid ${orig}`;
  let s = orig.replace(/^[-+]/, '');
  if (s === '0') return undefined;
  if (s === '') return invalid;
  let total = 0;
  while (s !== '') {
    const number = /^([0-9]*)(?:\.([0-9]*))?/.exec(s)!;
    if (number[0] === '' || (number[1] === '' && !number[2])) return invalid;
    s = s.slice(number[0].length);
    const unit = /^[^0-9.]*/.exec(s)![0];
    s = s.slice(unit.length);
    const scale = units.get(unit);
    if (scale === undefined) return `units: unknown unit ${unit} in ${orig}`;
    total += Number(number[0]) * scale;
  }
  return total > 2 ** 63 - 1 ? 'units: overflow parsing unit' : undefined;
}

/** units.ParseBase2Bytes, which reads `1MiB` and then, failing that, `1MB` (both 1024-based): its error, or undefined. */
export const base2BytesProblem = (s: string): string | undefined =>
  parseUnitProblem(s, BYTES_UNITS) === undefined ? undefined : parseUnitProblem(s, OLD_BYTES_UNITS);

/** textproto.CanonicalMIMEHeaderKey: a token's words capitalized at each hyphen; a key that is no token as it is. */
export function canonicalHeaderKey(key: string): string {
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(key)) return key;
  return key.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}

/** isCompressionAcceptEncodingValid: a compression the Accept-Encoding header asks for (by name or `*`) with a quality above 0. */
export function compressionFitsAcceptEncoding(encoding: string, acceptEncoding: string): boolean {
  if (encoding === '' || acceptEncoding === '') return true;
  const encodings = acceptEncoding.split(',').map((part) => {
    const semi = part.lastIndexOf(';');
    if (semi < 0) return { encoding: part.trim(), quality: 1 };
    const q = Number.parseFloat(
      part
        .slice(semi + 1)
        .trim()
        .replace(/^q=/, ''),
    );
    return { encoding: part.slice(0, semi).trim(), quality: Number.isNaN(q) ? 0 : Math.round(q * 1000) / 1000 };
  });
  // sort.SliceStable by quality, highest first; Array.prototype.sort is stable.
  const best = encodings.sort((a, b) => b.quality - a.quality).find((e) => e.encoding === encoding || e.encoding === '*');
  return best !== undefined && best.quality > 0;
}

/** miekg/dns v1.1.68's StringToClass. */
export const DNS_CLASSES: ReadonlySet<string> = new Set(['IN', 'CS', 'CH', 'HS', 'NONE', 'ANY']);

/** miekg/dns v1.1.68's StringToType (ztypes.go's TypeToString, reversed). */
export const DNS_TYPES: ReadonlySet<string> = new Set(
  (
    'A AAAA AFSDB AMTRELAY ANY APL ATMA AVC AXFR CAA CDNSKEY CDS CERT CNAME CSYNC DHCID DLV DNAME DNSKEY DS EID EUI48 ' +
    'EUI64 GID GPOS HINFO HIP HTTPS IPSECKEY ISDN IXFR KEY KX L32 L64 LOC LP MAILA MAILB MB MD MF MG MINFO MR MX NAPTR ' +
    'NID NIMLOC NINFO NS NSEC NSEC3 NSEC3PARAM NULL NXNAME NXT OPENPGPKEY OPT PTR PX RESINFO RKEY RP RRSIG RT SIG SMIMEA ' +
    'SOA SPF SRV SSHFP SVCB TA TALINK TKEY TLSA TSIG TXT UID UINFO UNSPEC URI X25 ZONEMD NSAP-PTR'
  ).split(' '),
);

/** The names cel-go declares beside the exporter's one variable, `body`: the type identifiers. */
const DECLARED = new Set(['body', 'int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type', 'dyn']);

/** The identifiers of a parsed expression that cel-go's checker finds undeclared (macros' own variables in scope). */
function celUndeclared(parsed: ParsedExpr): string[] {
  const out: string[] = [];
  const walk = (e: Expr | undefined, scope: ReadonlySet<string>): void => {
    const kind = e?.exprKind;
    switch (kind?.case) {
      case 'identExpr':
        if (!DECLARED.has(kind.value.name) && !scope.has(kind.value.name)) out.push(kind.value.name);
        return;
      case 'selectExpr':
        return walk(kind.value.operand, scope);
      case 'callExpr':
        walk(kind.value.target, scope);
        for (const a of kind.value.args) walk(a, scope);
        return;
      case 'listExpr':
        for (const el of kind.value.elements) walk(el, scope);
        return;
      case 'structExpr':
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case === 'mapKey') walk(entry.keyKind.value, scope);
          walk(entry.value, scope);
        }
        return;
      case 'comprehensionExpr': {
        const c = kind.value;
        walk(c.iterRange, scope);
        walk(c.accuInit, scope);
        const inner = new Set([...scope, c.iterVar, c.iterVar2, c.accuVar].filter(Boolean));
        for (const part of [c.loopCondition, c.loopStep]) walk(part, inner);
        walk(c.result, new Set([...scope, c.accuVar]));
        return;
      }
      default:
        return;
    }
  };
  walk(parsed.expr, new Set());
  return out;
}

/** Whether cel-go compiles the expression with the exporter's one variable (NewCELProgram): it parses, and names nothing undeclared. */
export function celCompiles(expr: string): boolean {
  // The CEL engine is loaded on first use, as the admission layer loads it: loading it costs every run's start-up.
  const { parse } = createRequire(import.meta.url)('@bufbuild/cel') as typeof import('@bufbuild/cel');
  try {
    return celUndeclared(parse(expr)).length === 0;
  } catch {
    return false;
  }
}
