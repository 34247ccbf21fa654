/**
 * Field trees: the set of field names every kind allows, read from the same
 * kubernetes-models packages whose validators we run.
 *
 * Why: kubernetes-models' precompiled validators check types, required fields
 * and enums but accept unknown fields (a typo such as `capabilites` passes).
 * Their `.d.ts` files, however, spell out every field, for core kinds and for
 * the Argo CD and prometheus-operator CRDs alike. Walking those declarations
 * with the TypeScript checker gives one source of truth for strictness that
 * cannot drift from the validator. The walk takes a few seconds, so its result
 * is cached under node_modules/.cache keyed by the package versions.
 */
import { createRequire } from 'node:module';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { writeFileAtomic } from '../model/stores/write-atomic.ts';
import { dirname, join, relative } from 'node:path';
import { packageVersion } from '../model/stores/outcome-store.ts';

/** A field's shape: scalar, open (anything goes), array, map, or an object with known fields. */
/**
 * A node's fields as the API server prunes them: 's' a value with no fields, 'o' anything, a list's items, a map's
 * entries, or an object's fields (`rest`: the shape of any other, as additionalProperties beside properties; `open`:
 * others kept, as `x-kubernetes-preserve-unknown-fields` keeps them; `none`: a node that declares no field, whose
 * lists' objects hold none either).
 */
export type Shape = 's' | 'o' | { a: number } | { m: number } | { f: Record<string, number>; rest?: number; open?: true; none?: true };

/** The unknown fields of `value` under a shape, each by its path and the fields its object knows. */
export function unknownFieldPaths(shapes: readonly Shape[], shapeId: number, value: unknown): { path: (string | number)[]; known: string[] }[] {
  const out: { path: (string | number)[]; known: string[] }[] = [];
  const walk = (v: unknown, id: number, path: (string | number)[]) => {
    const shape = shapes[id];
    if (shape === undefined || shape === 's' || shape === 'o' || v === null || typeof v !== 'object') return;
    if ('a' in shape) {
      if (Array.isArray(v)) v.forEach((item, i) => walk(item, shape.a, [...path, i]));
      return;
    }
    if (Array.isArray(v)) {
      if ('f' in shape && shape.none) v.forEach((item, i) => walk(item, id, [...path, i]));
      return;
    }
    const o = v as Record<string, unknown>;
    if ('m' in shape) {
      for (const [k, item] of Object.entries(o)) walk(item, shape.m, [...path, k]);
      return;
    }
    for (const [k, item] of Object.entries(o)) {
      const child = shape.f[k] ?? shape.rest;
      if (child !== undefined) walk(item, child, [...path, k]);
      else if (!shape.open) out.push({ path: [...path, k], known: Object.keys(shape.f) });
    }
  };
  walk(value, shapeId, []);
  return out;
}

export interface KindEntry {
  /** Package and file (relative to the package) exporting the precompiled `validate` function. */
  validator: { pkg: string; file: string };
  /** Index of the root shape in `shapes`. */
  root: number;
}

export interface FieldTrees {
  key: string;
  /** Keyed by `apiVersion/kind`, e.g. `apps/v1/Deployment` or `v1/Pod`. */
  kinds: Record<string, KindEntry>;
  shapes: Shape[];
}

/** The packages that provide schemas, on their current lines (Node 24). */
export const MODEL_PACKAGES = ['kubernetes-models', '@kubernetes-models/argo-cd', '@kubernetes-models/prometheus-operator'] as const;

const GENERATOR_REVISION = 4;
const require = createRequire(import.meta.url);

export function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

export function fieldTreesCacheKey(): string {
  return [`rev${GENERATOR_REVISION}`, ...MODEL_PACKAGES.map((p) => `${p}@${packageVersion(p)}`)].join(';');
}

function cachePath(): string {
  const nodeModules = dirname(packageDir('kubernetes-models'));
  return join(nodeModules, '.cache', 'homelab-gate', 'field-trees.json');
}

let memo: FieldTrees | undefined;

/** Loads the cached field trees, regenerating them when the model packages changed. */
export async function loadFieldTrees(): Promise<FieldTrees> {
  if (memo) return memo;
  const key = fieldTreesCacheKey();
  const file = cachePath();
  if (existsSync(file)) {
    const cached = JSON.parse(readFileSync(file, 'utf8')) as FieldTrees;
    if (cached.key === key) return (memo = cached);
  }
  const generated = await generateFieldTrees(key);
  // Parallel test workers may race here; write-then-rename keeps every reader whole.
  writeFileAtomic(file, JSON.stringify(generated));
  return (memo = generated);
}

interface ModelFile {
  dts: string;
  validator: { pkg: string; file: string };
}

/** Finds every model class that carries its own apiVersion/kind, with the module of its validator. */
function findModelFiles(ts: typeof import('typescript'), pkg: string): ModelFile[] {
  const root = packageDir(pkg);
  const found: ModelFile[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === '_schemas') continue;
      const full = join(dir, name);
      if (statSync(full).isDirectory()) {
        walk(full);
        continue;
      }
      // 5.x ships ESM as .js; older lines used .mjs.
      if (!/\.m?js$/.test(name) || /^index\.m?js$/.test(name)) continue;
      const code = readFileSync(full, 'utf8');
      // Only top-level kinds register a type-meta guard; nested types do not.
      if (!code.includes('createTypeMetaGuard')) continue;
      const schemaImport = ts.preProcessFile(code, true, false).importedFiles.find((f) => f.fileName.includes('/_schemas/'));
      if (!schemaImport) continue;
      const validatorFile = join(dirname(full), schemaImport.fileName);
      found.push({
        dts: full.replace(/\.m?js$/, '.d.ts'),
        validator: { pkg, file: relative(root, validatorFile).split('\\').join('/') },
      });
    }
  };
  walk(root);
  return found;
}

async function generateFieldTrees(key: string): Promise<FieldTrees> {
  const ts = (await import('typescript')).default;
  const files = MODEL_PACKAGES.flatMap((p) => findModelFiles(ts, p));
  const program = ts.createProgram(
    files.map((f) => f.dts),
    { strict: true, noEmit: true, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, types: [] },
  );
  const checker = program.getTypeChecker();
  const shapes: Shape[] = [];
  const shapeOf = new Map<import('typescript').Type, number>();
  const SCALAR = push('s');
  const OPEN = push('o');

  function push(shape: Shape): number {
    shapes.push(shape);
    return shapes.length - 1;
  }

  function walk(type: import('typescript').Type): number {
    const t = checker.getNonNullableType(type);
    const known = shapeOf.get(t);
    if (known !== undefined) return known;
    if (t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return OPEN;
    if (t.isUnion()) {
      const members = t.types.filter((m) => !(m.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)));
      const structured = members.filter((m) => m.flags & ts.TypeFlags.Object);
      if (structured.length === 0) return SCALAR;
      if (structured.length === 1) return walk(structured[0]!);
      return OPEN; // several object alternatives: no single field set to enforce
    }
    if (!(t.flags & ts.TypeFlags.Object) && !t.isIntersection()) return SCALAR;
    if (checker.isArrayType(t)) {
      const id = push({ a: OPEN });
      shapeOf.set(t, id);
      shapes[id] = { a: walk(checker.getTypeArguments(t as import('typescript').TypeReference)[0]!) };
      return id;
    }
    if (checker.isTupleType(t)) return OPEN;
    const props = checker.getPropertiesOfType(t);
    const index = checker.getIndexInfoOfType(t, ts.IndexKind.String);
    if (props.length === 0) {
      if (!index) return OPEN;
      const id = push({ m: OPEN });
      shapeOf.set(t, id);
      shapes[id] = { m: walk(index.type) };
      return id;
    }
    if (index) return OPEN;
    const id = push({ f: {} });
    shapeOf.set(t, id);
    const fields: Record<string, number> = {};
    for (const prop of props) fields[prop.getName()] = walk(checker.getTypeOfSymbol(prop));
    shapes[id] = { f: fields };
    return id;
  }

  const kinds: Record<string, KindEntry> = {};
  for (const file of files) {
    const source = program.getSourceFile(file.dts);
    if (!source) continue;
    const moduleSymbol = checker.getSymbolAtLocation(source);
    if (!moduleSymbol) continue;
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      if (!(exported.flags & ts.SymbolFlags.Interface)) continue;
      const type = checker.getDeclaredTypeOfSymbol(exported);
      const literal = (name: string): string | undefined => {
        const prop = type.getProperty(name);
        const propType = prop && checker.getTypeOfSymbol(prop);
        return propType?.isStringLiteral() ? propType.value : undefined;
      };
      const apiVersion = literal('apiVersion');
      const kind = literal('kind');
      if (!apiVersion || !kind) continue;
      kinds[`${apiVersion}/${kind}`] = { validator: file.validator, root: walk(type) };
      break;
    }
  }
  return { key, kinds, shapes };
}
