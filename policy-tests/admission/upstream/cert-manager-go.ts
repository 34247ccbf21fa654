/**
 * Reading cert-manager's (and External Secrets') Go test tables: the rows of a `map[string]struct` table, each parsed
 * alone; the names its values use (the test's locals, the file's package variables, the package's constants, read
 * when first used); field.Error values as their type, field and detail; and a parsed Go value written as the v1 JSON
 * it marshals to, field by field by the Go type each field has in the v1 sources of the same checkout. The readers
 * of each test file (cert-manager-cases.ts, cert-manager-issuer-cases.ts, cert-manager-solver-cases.ts,
 * external-secrets-cases.ts) share this one reading.
 */
import { asJson, asManifest, blockAt, goBuiltin, GoParser, GoUnsupported, NOT_BUILTIN, tokenize, type GoEnvironment } from './go-literals.ts';
import { TEST_CERTIFICATE_PEM } from './test-certificate.ts';

type Go = Record<string, any>;

const NS_PER = { 'time.Hour': 3600e9, 'time.Minute': 60e9, 'time.Second': 1e9 } as const;

/** A field.Error as its type, its field's spelling and, where the test gives it, its detail. */
function fieldError(type: string, args: unknown[]): { type: string; field: unknown; detail?: unknown } {
  if (type === 'Required' || type === 'Forbidden') return { type, field: args[0], detail: args[1] };
  if (type === 'Invalid') return { type, field: args[0], detail: args[2] };
  if (type === 'NotSupported') return { type, field: args[0], detail: (args[2] as string[]).map((v) => JSON.stringify(v)).join(', ') };
  return { type, field: args[0] };
}

/** The rows of one test's `scenarios := map[string]struct{...}{...}` table, each parsed alone. */
export function mapTableRows(body: string, env: GoEnvironment): { name: string; row?: Go; why?: string }[] {
  const at = body.search(/(?:scenarios|tests) := map\[string\]struct \{/);
  if (at === -1) return [];
  const structOpen = body.indexOf('{', at);
  const table = blockAt(body, body.indexOf('{', structOpen + blockAt(body, structOpen).length + 1));
  const out: { name: string; row?: Go; why?: string }[] = [];
  for (const m of table.matchAll(/\n\t\t"((?:[^"\\]|\\.)*)":\s*\{/g)) {
    const text = blockAt(table, m.index + m[0].length - 1);
    try {
      out.push({ name: m[1]!, row: new GoParser(tokenize(`Row{${text}}`), env).expr() as Go });
    } catch (err) {
      out.push({ name: m[1]!, why: (err as Error).message });
    }
  }
  return out;
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
export function environment(at: string, definitions: ReadonlyMap<string, string>, constants: Readonly<Record<string, unknown>>): GoEnvironment {
  const cache = new Map<string, unknown>();
  const env: GoEnvironment = {
    value(name) {
      if (name === 'fldPath') return at;
      if (name in constants) return constants[name];
      if (name in NS_PER) return NS_PER[name as keyof typeof NS_PER];
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
      if (name === '.Index' || name === '.Key') return `${String(args[0])}[${String(args[1])}]`;
      if (name === '.WithOrigin' || name === 'fmt.Sprintf') return args[0];
      if (name.startsWith('field.')) return fieldError(name.slice('field.'.length), args);
      // A conversion to a named string type (`gwapi.Kind("Gateway")`, `internalcmapi.KeyUsage("x")`) is its value.
      if (/^(?:gwapi|corev1|cmacme|cmapi|cmmeta|internalcmapi)\.[A-Z]\w*$/.test(name) && args.length === 1) return args[0];
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
