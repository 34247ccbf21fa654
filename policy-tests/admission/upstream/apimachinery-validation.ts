/**
 * k8s.io/apimachinery's own cases of the name and value rules every API object's validation is built from
 * (pkg/util/validation/validation_test.go), read as data and judged by the gate's ports of them
 * (validation/syntax.ts). Most tests list good and bad values and loop over each calling one function
 * (`goodValues := []string{...}` ... `for _, val := range goodValues { if msgs := IsDNS1123Label(val); len(msgs) != 0`);
 * a value agrees when the gate admits a good one and refuses a bad one, and so in a table test whose rows give the
 * expected messages (`expected []string`, none for a good value). A function the gate has no port of is
 * listed apart, not counted; a list this reader cannot follow is counted as not read.
 */
import {
  cidr,
  configMapKey,
  dns1035Label,
  dns1123Label,
  dns1123Subdomain,
  dns1123SubdomainWithUnderscore,
  envVarName,
  isPortNumber,
  isSloppyIP,
  labelValue,
  portName,
  qualifiedName,
  wildcardSubdomain,
} from '../validation/syntax.ts';
import { validateAnnotations, validateLabels } from '../validation/metadata.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { blockAt, builtinEnvironment, GoParser, GoUnsupported, structTableRows, tokenize, type GoEnvironment } from './go-literals.ts';
import { declaredList } from './go-test-driver.ts';

/** apimachinery's functions the gate ports: each value's problem, or undefined where it admits it. */
const PORTS: Readonly<Record<string, (v: unknown) => string | undefined>> = {
  IsDNS1123Label: (v) => dns1123Label(String(v)),
  IsDNS1123Subdomain: (v) => dns1123Subdomain(String(v)),
  IsDNS1035Label: (v) => dns1035Label(String(v)),
  IsDNS1123SubdomainWithUnderscore: (v) => dns1123SubdomainWithUnderscore(String(v)),
  IsQualifiedName: (v) => qualifiedName(String(v)),
  IsValidLabelValue: (v) => labelValue(String(v)),
  IsValidPortName: (v) => portName(String(v)),
  IsConfigMapKey: (v) => configMapKey(String(v)),
  IsRelaxedEnvVarName: (v) => envVarName(String(v), true),
  IsEnvVarName: (v) => envVarName(String(v), false),
  IsWildcardDNS1123Subdomain: (v) => wildcardSubdomain(String(v)),
  IsValidPortNum: (v) => (isPortNumber(Number(v)) ? undefined : 'must be between 1 and 65535, inclusive'),
  // The legacy fields' validators without StrictIPCIDRValidation (alpha since 1.33, off): a Service's clusterIP, a
  // pod's hostAliases and DNS nameservers, an ipBlock's CIDR.
  IsValidIPForLegacyField: (v) => (isSloppyIP(String(v)) ? undefined : 'must be a valid IP address'),
  IsValidCIDRForLegacyField: (v) => cidr(String(v)),
  ValidateLabels: (v) => validateLabels(v, [])[0]?.message,
  ValidateAnnotations: (v) => validateAnnotations(v, [])[0]?.message,
};

/**
 * ip_test.go's TestIsValidIP and TestIsValidCIDR: each row's value, valid for the legacy field validator without
 * strict validation where its `legacyErr` is empty (the cluster's default: StrictIPCIDRValidation is alpha and off).
 */
export function ipCases(goSource: string): SyntaxTable {
  const table: SyntaxTable = { cases: [], unported: [], unread: [] };
  for (const [test, fn] of [
    ['TestIsValidIP', 'IsValidIPForLegacyField'],
    ['TestIsValidCIDR', 'IsValidCIDRForLegacyField'],
  ] as const) {
    const at = goSource.indexOf(`func ${test}(`);
    if (at === -1) continue;
    for (const { row, why, text } of structTableRows(blockAt(goSource, goSource.indexOf('{', at)), /testCases/, ENV)) {
      const name = /name:\s*"((?:[^"\\]|\\.)*)"/.exec(text)?.[1] ?? '(unnamed)';
      if (!row) table.unread.push({ test: `${test}/${name}`, why: why ?? 'unread' });
      else table.cases.push({ test, fn, value: row.in, valid: !row.legacyErr });
    }
  }
  return table;
}

const ENV = builtinEnvironment();

/**
 * A table's rows are compared by validity alone: their expected messages are built by the package's own helpers
 * (RegexError, MaxLenError) from its unexported constants, which stand in here as their names.
 */
const TABLE_ENV: GoEnvironment = {
  value: (name) => name,
  call: (name, args) => (name === 'strings.Repeat' ? ENV.call(name, args) : `${name}(${args.join(', ')})`),
};

export interface SyntaxCase {
  test: string;
  fn: string;
  value: unknown;
  valid: boolean;
}

export interface SyntaxTable {
  cases: SyntaxCase[];
  /** Functions the gate has no port of: their tests are not counted. */
  unported: string[];
  unread: { test: string; why: string }[];
}

const listIn = (body: string, name: string): unknown[] => declaredList(body, name, ENV);

export function syntaxCases(goSource: string): SyntaxTable {
  const table: SyntaxTable = { cases: [], unported: [], unread: [] };
  for (const m of goSource.matchAll(/^func (Test\w+)\(t \*testing\.T\) \{/gm)) {
    const test = m[1]!;
    // `string(make([]byte, n))` is n zero bytes.
    const body = blockAt(goSource, goSource.indexOf('{', m.index)).replace(/string\(make\(\[\]byte, (\d+)\)\)/g, 'strings.Repeat("\\x00", $1)');
    // A loop over a list, asserting each value admitted (len != 0 fails it) or refused (len == 0 fails it).
    const loops = [...body.matchAll(/for (?:_, val|i) := range (\w+) \{\s*if (?:msgs|errs) := (Is\w+)\((?:val|\w+\[i\])\); len\((?:msgs|errs)\) (!=|==|>) 0/g)];
    const tabled = /result := (Is\w+)\(tt\.value\)/.exec(body);
    const fns = [...new Set([...loops.map((l) => l[2]!), ...(tabled ? [tabled[1]!] : [])])];
    const unported = fns.filter((f) => !(f in PORTS));
    if (unported.length) {
      table.unported.push(...unported);
      continue;
    }
    try {
      // A test is read whole or not at all.
      const cases: SyntaxCase[] = [];
      for (const [, list, fn, op] of loops) for (const value of listIn(body, list!)) cases.push({ test, fn: fn!, value, valid: op !== '==' });
      if (tabled)
        for (const { row, why, text } of structTableRows(body, /tests/, TABLE_ENV)) {
          if (!row) throw new GoUnsupported(why ?? `a row not read: ${text.slice(0, 40)}`);
          const expected = (row.expected as unknown[] | null | undefined) ?? [];
          cases.push({ test, fn: tabled[1]!, value: row.value, valid: expected.length === 0 });
        }
      table.cases.push(...cases);
    } catch (err) {
      if (!(err instanceof GoUnsupported)) throw err;
      table.unread.push({ test, why: err.message });
    }
  }
  return table;
}

export function syntaxAgreement(table: SyntaxTable): Agreement {
  const a = emptyAgreement();
  for (const c of table.cases) {
    const problem = PORTS[c.fn]!(c.value);
    const ok = (problem === undefined) === c.valid;
    const why = `${c.valid ? 'refused' : 'admitted'} ${JSON.stringify(c.value)}${problem ? `: ${problem}` : ''}`;
    count(a, { group: c.fn, ok, file: `${c.test}/${JSON.stringify(c.value)}`, why });
  }
  for (const u of table.unread) count(a, { group: 'not read', ok: false, file: u.test, why: `not read: ${u.why}` });
  return a;
}

/** The label and annotation maps of metav1's TestValidateLabels and api/validation's TestValidateAnnotations. */
const MAP_TESTS = [
  { test: 'TestValidateLabels', fn: 'ValidateLabels' },
  { test: 'TestValidateAnnotations', fn: 'ValidateAnnotations' },
] as const;

const MAP_ENV: GoEnvironment = {
  // The tests' message constants stand in as their names: only whether a map is refused is compared.
  value: (name) => (name === 'TotalAnnotationSizeLimitB' ? 256 * 1024 : name),
  call: (name, args) => ENV.call(name, args),
};

/**
 * TestValidateLabels (apimachinery pkg/apis/meta/v1/validation) and TestValidateAnnotations (pkg/api/validation),
 * `goSources` the two test files: each success map admitted, each error map refused.
 */
export function metadataMapCases(goSources: readonly string[]): SyntaxTable {
  const table: SyntaxTable = { cases: [], unported: [], unread: [] };
  for (const { test, fn } of MAP_TESTS)
    for (const src of goSources) {
      const at = src.indexOf(`func ${test}(`);
      if (at === -1) continue;
      const body = blockAt(src, src.indexOf('{', at));
      try {
        const cases: SyntaxCase[] = [];
        for (const m of body.matchAll(/(\w+) := (\[\](?:map\[string\]string|struct \{[^}]*\})\{)/g)) {
          const open = m.index + m[0].length - 1;
          const text = `[]Row${body.slice(open, open + blockAt(body, open).length + 2)}`;
          const rows = new GoParser(tokenize(text), MAP_ENV).expr() as unknown[];
          const valid = /success/i.test(m[1]!);
          // A struct row (`{map[string]string{...}, expect}`) holds its map first.
          for (const row of rows) cases.push({ test, fn, value: Array.isArray(row) ? row[0] : row, valid });
        }
        table.cases.push(...cases);
      } catch (err) {
        if (!(err instanceof GoUnsupported)) throw err;
        table.unread.push({ test, why: err.message });
      }
    }
  return table;
}
