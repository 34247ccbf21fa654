/**
 * cert-manager's Issuer validation tests (internal/apis/certmanager/validation/issuer_test.go), read as data. Each
 * table names the function it calls and the object it gives it; the object is written here as the v1 JSON it
 * converts to, field by field by the Go type each field has in the v1 sources of the same checkout (an embedded
 * struct's fields inline, `json:"..."` tags, `[]byte` as base64), and the gate's port of that same function judges
 * it (admission/webhooks/cert-manager-issuer.ts). A row agrees when the gate gives exactly the errors it expects, in
 * its order, each by type, field and detail (and the warnings, where the row says them); a Gateway parentRef row
 * when an error holds the words it wants, or none when it wants none. A freshly made certificate
 * (`unitcrypto.MustCreateCryptoBundle`) is stood in for by a fixed self-signed one: the webhook only asks that a
 * bundle hold one. A row this reader cannot follow is counted as not read, with why.
 */
import type { Invalid } from '../validation/metadata.ts';
import {
  acmeIssuerProblems,
  dns01Problems,
  http01Problems,
  issuerSpecProblems,
  secretKeySelectorProblems,
  vaultAuthProblems,
  vaultIssuerProblems,
  venafiIssuerProblems,
  venafiNGTSProblems,
  venafiTPPProblems,
  type IssuerVerdict,
} from '../webhooks/cert-manager-issuer.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { mapTableRows } from './cert-manager-cases.ts';
import { asJson, asManifest, blockAt, goBuiltin, GoParser, GoUnsupported, NOT_BUILTIN, structTableRows, tokenize, type GoEnvironment } from './go-literals.ts';
import { TEST_CERTIFICATE_PEM } from './test-certificate.ts';

type Go = Record<string, any>;
type Judge = (value: unknown, at: (string | number)[]) => IssuerVerdict;

const errorsOnly =
  (judge: (value: unknown, at: (string | number)[]) => Invalid[]): Judge =>
  (value, at) => ({ errors: judge(value, at), warnings: [] });

/** Each table: the row field holding the object, its Go type, and the function the test calls on it. */
const TABLES: Readonly<Record<string, { field: string; type: string; judge: Judge }>> = {
  TestValidateVaultIssuerConfig: { field: 'spec', type: 'VaultIssuer', judge: errorsOnly(vaultIssuerProblems) },
  TestValidateVaultIssuerAuth: { field: 'auth', type: 'VaultAuth', judge: errorsOnly(vaultAuthProblems) },
  TestValidateACMEIssuerConfig: { field: 'spec', type: 'ACMEIssuer', judge: acmeIssuerProblems },
  TestValidateIssuerSpec: { field: 'spec', type: 'IssuerSpec', judge: issuerSpecProblems },
  TestValidateACMEIssuerHTTP01Config: { field: 'cfg', type: 'ACMEChallengeSolverHTTP01', judge: errorsOnly(http01Problems) },
  TestValidateACMEIssuerDNS01Config: { field: 'cfg', type: 'ACMEChallengeSolverDNS01', judge: errorsOnly(dns01Problems) },
  TestValidateSecretKeySelector: { field: 'selector', type: 'SecretKeySelector', judge: errorsOnly(secretKeySelectorProblems) },
  TestValidateVenafiIssuerConfig: { field: 'cfg', type: 'VenafiIssuer', judge: errorsOnly(venafiIssuerProblems) },
  TestValidateVenafiTPP: { field: 'cfg', type: 'VenafiTPP', judge: errorsOnly(venafiTPPProblems) },
  TestValidateVenafiNGTS: { field: 'cfg', type: 'VenafiNGTS', judge: errorsOnly(venafiNGTSProblems) },
};

export interface IssuerCase {
  test: string;
  name: string;
  /** The v1 JSON of the object the test gives its function. */
  value: unknown;
  /** The place the test gives (`field.NewPath("spec")`), '' for a nil path. */
  at: string;
  /** Each expected error as `<type> <field>: <detail>`; for a parentRef row, the words one error must hold. */
  errors: string[];
  warnings?: string[];
  contains?: string;
}

export interface IssuerTable {
  cases: IssuerCase[];
  unread: { name: string; why: string }[];
}

export interface GoField {
  type: string;
  /** The JSON name; '' for an inlined embedded struct. */
  json: string;
}

/** Each struct of the v1 sources: its Go fields, each with its type and JSON name. */
export function structsOf(sources: readonly string[]): Map<string, Map<string, GoField>> {
  const structs = new Map<string, Map<string, GoField>>();
  for (const src of sources)
    for (const m of src.matchAll(/^type (\w+) struct \{/gm)) {
      const fields = new Map<string, GoField>();
      for (const line of blockAt(src, m.index + m[0].length - 1).split('\n')) {
        const named = /^\t(\w+)\s+([^\s`]+)\s+`json:"([^",]*)/.exec(line);
        const embedded = /^\t([\w.*]+)\s+`json:"([^",]*)/.exec(line);
        if (named) fields.set(named[1]!, { type: named[2]!, json: named[3]! });
        else if (embedded) fields.set(embedded[1]!.replace(/^.*\./, ''), { type: embedded[1]!, json: embedded[2]! });
      }
      structs.set(m[1]!, fields);
    }
  return structs;
}

/** A parsed Go value of the given type as the v1 JSON holds it. */
export function toV1(value: unknown, type: string, structs: Map<string, Map<string, GoField>>): unknown {
  const t = type.startsWith('*') ? type.slice(1) : type;
  if (value === null || value === undefined) return null;
  if (t === '[]byte') return Buffer.from(value as string, 'latin1').toString('base64');
  if (t.startsWith('[]')) return (value as unknown[]).map((v) => toV1(v, t.slice(2), structs));
  if (t === 'metav1.Duration') return `${Number((value as Go).Duration) / 1e9}s`;
  if (t.startsWith('map[') || typeof value !== 'object') return asJson(value);
  const fields = structs.get(t.replace(/^.*\./, ''));
  // A type from outside cert-manager (Gateway API's, core's): its JSON names are its fields' names, lowered.
  if (!fields) return asManifest(asJson(value));
  const out: Go = {};
  for (const [k, v] of Object.entries(value as Go)) {
    if (k === '@type') continue;
    const f = fields.get(k);
    if (!f) throw new GoUnsupported(`no field ${k} in ${t}`);
    if (f.json === '') Object.assign(out, toV1(v, f.type, structs));
    else out[f.json] = toV1(v, f.type, structs);
  }
  return out;
}

/** The names a table's values use: the file's package variables, the test's locals and constants, read lazily. */
export function environment(at: string, definitions: ReadonlyMap<string, string>, constants: Readonly<Record<string, string>>): GoEnvironment {
  const cache = new Map<string, unknown>();
  const env: GoEnvironment = {
    value(name) {
      if (name === 'fldPath') return at;
      if (name in constants) return constants[name];
      if (name === 'time.Second') return 1e9;
      if (name === 'time.Minute') return 60e9;
      if (!cache.has(name)) {
        const text = definitions.get(name);
        if (text === undefined) throw new GoUnsupported(`unknown identifier ${name}`);
        cache.set(name, new GoParser(tokenize(text), env).expr());
      }
      return cache.get(name);
    },
    call(name, args) {
      const built = goBuiltin(name, args);
      if (built !== NOT_BUILTIN) return built;
      if (name === 'byteText') return String(args[0]);
      if (name === 'field.NewPath') return String(args[0]);
      if (name === 'fldPath.Child') return [at, ...args].filter((s) => s !== '').join('.');
      if (name === '.Child') return [args[0], ...args.slice(1)].filter((s) => s !== '').join('.');
      if (name === '.Index') return `${String(args[0])}[${String(args[1])}]`;
      if (/^field\.(Required|Forbidden)$/.test(name)) return { type: name.slice(6), field: args[0], detail: args[1] };
      if (name === 'field.Invalid') return { type: 'Invalid', field: args[0], detail: args[2] };
      if (name === 'field.NotSupported')
        return { type: 'NotSupported', field: args[0], detail: (args[2] as string[]).map((v) => JSON.stringify(v)).join(', ') };
      // A conversion to a named string type (`gwapi.Kind("Gateway")`, `corev1.ServiceType("x")`) is its value.
      if (/^(?:gwapi|corev1|cmacme|cmapi|cmmeta)\.[A-Z]\w*$/.test(name) && args.length === 1) return args[0];
      throw new GoUnsupported(`unknown function ${name}`);
    },
  };
  return env;
}

/**
 * `name := value`, the test file's var block's `name = value` and the validation package's `var name = value`, as
 * text to parse when first used; a made certificate as the fixed one.
 */
export function definitionsOf(source: string, body: string, validationSources: readonly string[]): Map<string, string> {
  const defs = new Map<string, string>();
  for (const src of validationSources)
    for (const m of src.matchAll(/^var (\w+) = ([^\n{]*)\{/gm)) defs.set(m[1]!, `${m[2]}{${blockAt(src, m.index + m[0].length - 1)}}`);
  const varBlock = /^var \(([\s\S]*?)^\)/m.exec(source)?.[1] ?? '';
  for (const m of varBlock.matchAll(/^\t(\w+) = /gm)) {
    const open = varBlock.indexOf('{', m.index);
    defs.set(m[1]!, varBlock.slice(m.index + m[0].length, open) + '{' + blockAt(varBlock, open) + '}');
  }
  for (const m of body.matchAll(/^\t(\w+) := ([^\n]+)$/gm)) {
    if (m[2]!.startsWith('unitcrypto.MustCreateCryptoBundle(')) defs.set(m[1]!, JSON.stringify(TEST_CERTIFICATE_PEM));
    // A composite literal over several lines (`x := &pkg.Type{` ... `}`), but not the test's table.
    else if (/^&?[\w.]+\{$/.test(m[2]!)) defs.set(m[1]!, `${m[2]}${blockAt(body, m.index + m[0].length - 1)}}`);
    else if (!m[2]!.endsWith('{')) defs.set(m[1]!, m[2]!);
  }
  return defs;
}

const expected = (e: Go): string => `${String(e.type)} ${String(e.field)}: ${String(e.detail ?? '')}`;

/** The place a test gives its function: `field.NewPath("x")`, or '' for a nil path. */
const pathOf = (body: string): string => /fldPath := field\.NewPath\("([^"]*)"\)/.exec(body)?.[1] ?? '';

/**
 * Every row of the tables above, and the Gateway parentRef rows, from the test file and the v1 types' sources (their
 * fields' types and JSON names, their string constants), all of one checkout.
 */
export function certManagerIssuerCases(testSource: string, v1Sources: readonly string[], validationSources: readonly string[]): IssuerTable {
  const structs = structsOf(v1Sources);
  const constants: Record<string, string> = {};
  for (const src of v1Sources)
    for (const m of src.matchAll(/^\t(\w+)\s+\w+\s*=\s*"([^"]*)"/gm)) for (const pkg of ['cmacme', 'cmapi']) constants[`${pkg}.${m[1]}`] = m[2]!;
  // The validation package's own words (warnings.go's constants), which the rows expect by name.
  for (const src of validationSources)
    for (const m of src.matchAll(/^\t(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"/gm)) constants[m[1]!] = JSON.parse(`"${m[2]}"`) as string;
  const table: IssuerTable = { cases: [], unread: [] };
  for (const m of testSource.matchAll(/^func (Test\w+)\(t \*testing\.T\) \{/gm)) {
    const test = m[1]!;
    // `[]byte(x)` is read as a call the environment answers; a pointer conversion `(*gwapi.Kind)(x)` as its operand.
    const body = blockAt(testSource, m.index + m[0].length - 1)
      .replace(/\[\]byte\(/g, 'byteText(')
      .replace(/\(\*[\w.]+\)\(/g, '(');
    const at = pathOf(body);
    const env = environment(at, definitionsOf(testSource, body, validationSources), constants);
    const spec = TABLES[test];
    if (spec)
      for (const { name, row, why } of mapTableRows(body, env)) {
        try {
          if (!row) throw new GoUnsupported(why!);
          const rowErrors = (row.errs ?? []) as Go[];
          table.cases.push({
            test,
            name,
            at,
            value: toV1(row[spec.field], spec.type, structs),
            errors: rowErrors.map(expected),
            ...(test === 'TestValidateACMEIssuerConfig' ? { warnings: (row.warnings ?? []) as string[] } : {}),
          });
        } catch (err) {
          table.unread.push({ name: `${test}/${name}`, why: (err as Error).message });
        }
      }
    if (test === 'TestValidateACMEIssuerGatewayParentRefs') table.cases.push(...parentRefCases(body, env, structs, table));
  }
  return table;
}

/** The parentRef rows: each row's refs on a valid ACME issuer's one Gateway HTTP-01 solver, as the test builds it. */
function parentRefCases(body: string, env: GoEnvironment, structs: Map<string, Map<string, GoField>>, table: IssuerTable): IssuerCase[] {
  const issuer = toV1(env.value('validACMEIssuer'), 'ACMEIssuer', structs) as Go;
  const out: IssuerCase[] = [];
  for (const { row, why, text } of structTableRows(body, /tests/, env)) {
    if (!row) {
      table.unread.push({ name: `TestValidateACMEIssuerGatewayParentRefs/${text.slice(0, 40)}`, why: why! });
      continue;
    }
    const value = { ...issuer, solvers: [{ http01: { gatewayHTTPRoute: { parentRefs: asManifest(row.parentRefs) } } }] };
    out.push({
      test: 'TestValidateACMEIssuerGatewayParentRefs',
      name: String(row.name),
      at: '',
      value,
      errors: [],
      contains: typeof row.wantErrContains === 'string' ? row.wantErrContains : '',
    });
  }
  return out;
}

/** A gate error as upstream's field.Error: its type, its field as field.Path prints it under the given place, its detail. */
function asUpstream(p: Invalid, at: string): { type: string; field: string; detail: string; text: string } {
  const type = p.message.startsWith('Required value')
    ? 'Required'
    : p.message.startsWith('Forbidden')
      ? 'Forbidden'
      : p.message.startsWith('Unsupported value')
        ? 'NotSupported'
        : 'Invalid';
  const field = p.path.reduce<string>((f, s) => (typeof s === 'number' ? `${f}[${s}]` : f === '' ? s : `${f}.${s}`), at);
  const detail =
    type === 'Invalid'
      ? p.message.replace(/^Invalid value: (?:"(?:[^"\\]|\\.)*"|[^:]*): /, '')
      : type === 'NotSupported'
        ? p.message.replace(/^.*?supported values: /, '')
        : p.message.replace(/^(?:Required value|Forbidden)(?:: )?/, '');
  return { type, field, detail, text: `${field}: ${p.message}` };
}

/** How many rows the gate judges as cert-manager's own functions do. */
export function certManagerIssuerAgreement(table: IssuerTable): Agreement {
  const a = emptyAgreement();
  for (const c of table.cases) {
    const spec = TABLES[c.test];
    const verdict = spec ? spec.judge(c.value, []) : acmeIssuerProblems(c.value, []);
    const got = verdict.errors.map((p) => asUpstream(p, c.at));
    let ok: boolean;
    let why: string;
    if (c.contains !== undefined) {
      ok = c.contains === '' ? got.length === 0 : got.some((g) => g.text.includes(c.contains!));
      why = `the gate refuses [${got.map((g) => g.text).join('; ')}], cert-manager wants ${c.contains ? `an error holding "${c.contains}"` : 'none'}`;
    } else {
      const mine = got.map((g) => `${g.type} ${g.field}: ${g.detail}`);
      ok = JSON.stringify(mine) === JSON.stringify(c.errors) && (c.warnings === undefined || JSON.stringify(verdict.warnings) === JSON.stringify(c.warnings));
      why = `the gate refuses [${mine.join('; ')}]${c.warnings ? ` warning [${verdict.warnings.join('; ')}]` : ''}, cert-manager [${c.errors.join('; ')}]${c.warnings ? ` warning [${c.warnings.join('; ')}]` : ''}`;
    }
    count(a, { group: c.test, ok, file: `${c.test}/${c.name}`, why });
  }
  for (const u of table.unread) count(a, { group: 'not read', ok: false, file: u.name, why: `not read: ${u.why}` });
  return a;
}
