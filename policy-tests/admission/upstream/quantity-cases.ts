/**
 * apimachinery's own cases of what a quantity is (pkg/api/resource/quantity_test.go), held to the gate's port of
 * resource.ParseQuantity and Quantity.UnmarshalJSON (model/go/quantity.ts), which the schema layer, the admission
 * layer and CEL's quantity library read quantities with:
 * - `TestQuantityParse`: each row's value and format, and the same with a `-` and a `+` before it, as the test asks;
 *   its invalid texts, and the empty one, refused;
 * - `TestParseQuantity`: each row's value (`wantAsDec`; how Go stores it, int64 or inf.Dec, and its canonical print
 *   are not the gate's to say, and are not compared);
 * - `TestJSONWhitespace`: each JSON text decoded to its value.
 */
import { decodeQuantity, normalDecimal, parseGoQuantity, type ParsedQuantity } from '../../model/go/quantity.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { blockAt, goBuiltin, GoUnsupported, NOT_BUILTIN, structTableRows, tokenize, type GoEnvironment } from './go-literals.ts';

interface Expected {
  value: string;
  format?: string;
}

export interface QuantityCase {
  test: string;
  /** The text parsed, or the JSON text decoded. */
  input: string;
  decode?: boolean;
  expected: Expected | 'refused';
}

const INT64_MAX = 2n ** 63n - 1n;
const FORMATS = new Set(['DecimalSI', 'BinarySI', 'DecimalExponent']);

/** A value as one exact decimal text, in the model's normal form, so equal values print alike. */
function exactText(digits: bigint, exponent: number): string {
  const n = normalDecimal({ digits, exponent });
  return n.digits === 0n ? '0' : `${n.digits}e${n.exponent}`;
}

/** A Go decimal text (`-999.1`) as exactText. */
function decimalText(text: string): string {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (!m) throw new GoUnsupported(`not a decimal: ${text}`);
  const digits = BigInt(`${m[1] === '-' ? '-' : ''}${m[2]}${m[3] ?? ''}` || '0');
  return exactText(digits, -(m[3] ?? '').length);
}

/** The test file's helpers that build an expected quantity (decQuantity, maxAllowed, ptrDec), and its formats. */
const quantityEnvironment: GoEnvironment = {
  value(name) {
    if (FORMATS.has(name)) return name;
    if (name === 'maxAllowed') return { value: exactText(INT64_MAX, 0) };
    throw new GoUnsupported(`unknown identifier ${name}`);
  },
  call(name, args) {
    if (name === 'decQuantity') {
      const [i, exponent, format] = args;
      if (typeof i === 'number' && !Number.isInteger(i)) throw new GoUnsupported(`decQuantity of a fraction: ${i}`);
      return { value: exactText(BigInt(i as number | bigint), Number(exponent)), format };
    }
    if (name === 'ptrDec') return decimalText(String(args[0]));
    const built = goBuiltin(name, args);
    if (built === NOT_BUILTIN) throw new GoUnsupported(`unknown function ${name}`);
    return built;
  },
};

/** A `Quantity{d: ..., Format: ...}` literal or decQuantity's value, as Expected. */
function expectedOf(go: unknown): Expected {
  const q = go as { value?: string; format?: string; d?: { value: string }; Format?: string };
  if (q.d) return { value: q.d.value, ...(q.Format ? { format: q.Format } : {}) };
  if (typeof q.value !== 'string') throw new GoUnsupported('an expected quantity of another shape');
  return { value: q.value, ...(q.format ? { format: q.format } : {}) };
}

const negated = (e: Expected): Expected => ({ ...e, value: e.value === '0' ? '0' : e.value.startsWith('-') ? e.value.slice(1) : `-${e.value}` });

/** The body of `func <name>(`, or undefined. */
function testBody(source: string, name: string): string | undefined {
  const at = source.indexOf(`func ${name}(`);
  return at < 0 ? undefined : blockAt(source, source.indexOf('{', at));
}

/** A row this reader cannot follow, named by its first string literal. */
const firstString = (text: string): string => /"((?:[^"\\]|\\.)*)"/.exec(text)?.[1] ?? text.slice(0, 30);

type Read = { cases: QuantityCase[]; unread: { test: string; why: string }[] };

function readQuantityParse(body: string, out: Read): void {
  for (const { text, row, why } of structTableRows(body, /table/, quantityEnvironment)) {
    const [input, expect] = Array.isArray(row) ? (row as unknown[]) : [];
    const test = `TestQuantityParse/${typeof input === 'string' ? input : firstString(text)}`;
    try {
      if (typeof input !== 'string') throw new GoUnsupported(why ?? 'a row of another shape');
      const expected = expectedOf(expect);
      out.cases.push({ test, input, expected }, { test: `${test} (-)`, input: `-${input}`, expected: negated(expected) });
      out.cases.push({ test: `${test} (+)`, input: `+${input}`, expected });
    } catch (err) {
      out.unread.push({ test, why: (err as Error).message });
    }
  }
  const listAt = body.indexOf('invalid := []string{');
  const list = listAt < 0 ? '' : blockAt(body, body.indexOf('{', listAt));
  const invalid = tokenize(list).filter((t) => t.kind === 'string');
  for (const t of [{ value: '' }, ...invalid]) {
    const input = String(t.value);
    out.cases.push({ test: `TestQuantityParse/invalid ${JSON.stringify(input)}`, input, expected: 'refused' });
  }
}

function readParseQuantity(body: string, out: Read): void {
  for (const { text, row, why } of structTableRows(body.replace(/ptr\.To\[int64\]\(/g, 'ptr.To('), /tests/, quantityEnvironment)) {
    const r = row as { input?: unknown; wantAsDec?: unknown } | undefined;
    const test = `TestParseQuantity/${typeof r?.input === 'string' ? r.input : firstString(text)}`;
    if (typeof r?.input !== 'string' || typeof r.wantAsDec !== 'string') out.unread.push({ test, why: why ?? 'a row without its decimal value' });
    else out.cases.push({ test, input: r.input, expected: { value: r.wantAsDec } });
  }
}

function readJsonWhitespace(body: string, out: Read): void {
  for (const { text, row, why } of structTableRows(body, /testCases/, quantityEnvironment)) {
    const [input, expect] = Array.isArray(row) ? (row as unknown[]) : [];
    const test = `TestJSONWhitespace/${typeof input === 'string' ? input : firstString(text)}`;
    const parsed = typeof expect === 'string' ? parseGoQuantity(expect) : undefined;
    if (typeof input !== 'string' || !parsed?.ok) out.unread.push({ test, why: why ?? 'a row of another shape' });
    else out.cases.push({ test, input, decode: true, expected: { value: exactText(parsed.quantity.digits, parsed.quantity.exponent) } });
  }
}

/** The cases of quantity_test.go this reader follows, and those it cannot. */
export function quantityCases(source: string): Read {
  const out: Read = { cases: [], unread: [] };
  const readers: [string, (body: string, out: Read) => void][] = [
    ['TestQuantityParse', readQuantityParse],
    ['TestParseQuantity', readParseQuantity],
    ['TestJSONWhitespace', readJsonWhitespace],
  ];
  for (const [name, read] of readers) {
    const body = testBody(source, name);
    if (body === undefined) out.unread.push({ test: name, why: 'not in this checkout' });
    else read(body, out);
  }
  return out;
}

const shown = (p: ParsedQuantity): string => (p.ok ? `${exactText(p.quantity.digits, p.quantity.exponent)} ${p.quantity.format}` : `refused (${p.error})`);

/** Each case's outcome through the port, held to the test's. */
export function quantityAgreement(read: Read): Agreement {
  const a = emptyAgreement();
  for (const c of read.cases) {
    const got = c.decode ? decodeQuantity(JSON.parse(c.input) as unknown) : parseGoQuantity(c.input);
    const e = c.expected;
    const ok =
      e === 'refused'
        ? !got.ok
        : got.ok && exactText(got.quantity.digits, got.quantity.exponent) === e.value && (e.format === undefined || e.format === got.quantity.format);
    const wanted = e === 'refused' ? 'refused' : `${e.value}${e.format ? ` ${e.format}` : ''}`;
    count(a, { group: c.test.split('/')[0]!, ok, file: c.test, why: `reads ${shown(got)}, apimachinery ${wanted}` });
  }
  for (const u of read.unread) count(a, { group: 'not read', ok: false, file: u.test, why: `not read: ${u.why}` });
  return a;
}
