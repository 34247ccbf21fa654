/**
 * Rendered output as resources. Helm prints one document per object with a
 * `# Source: <chart>/templates/<file>` comment; kustomize prints plain
 * documents. Each resource remembers its Application and template, and its
 * positions point at what a person edits: the values key that set a value
 * when there is one, otherwise the chart source in application.yaml.
 */
import { asYaml11 } from '../model/yaml/yaml11.ts';
import { parseAllDocuments } from 'yaml';
import type { ArgoApp, AppSource } from '../model/argocd/argocd.ts';
import type { FilePosition, Positions, Resource } from '../model/core/manifest.ts';
import type { Path } from '../model/core/positions.ts';
import type { DataFile } from '../model/repository/repo.ts';
import { dig, isMap } from '../model/core/dig.ts';
import { trackingRefusal } from '../model/argocd/tracking.ts';
import { fastDocuments } from './fast-yaml.ts';
import { readAsGo } from '../model/yaml/go-quoted.ts';
import { goRefusalMessage, goYamlRefusals, separatorRefusals } from '../model/yaml/go-refusals.ts';

export interface RenderedDoc {
  object: Record<string, unknown>;
  template?: string;
}

export interface OutputProblem {
  message: string;
}

/** What one `---`-separated chunk of output split into. */
interface ChunkSplit {
  docs: RenderedDoc[];
  problems: OutputProblem[];
}

/**
 * Chunks already split, by their text. Rendered objects are never mutated, so two renders that print the same
 * chunk (the next pass of the API-version fixpoint, which changes a few objects of a chart, or two releases of one
 * chart) share its objects and parse it once.
 */
export type ChunkMemo = Map<string, ChunkSplit>;

/** Splits rendered YAML into objects, keeping Helm's `# Source:` comment of each. */
export function splitRendered(text: string, memo?: ChunkMemo): { docs: RenderedDoc[]; problems: OutputProblem[] } {
  const docs: RenderedDoc[] = [];
  const problems: OutputProblem[] = [];
  // Helm separates objects with `---` lines and heads each with `# Source:`; reading the chunks
  // directly keeps the comment however the template trimmed its blank lines.
  for (const chunk of text.split(/^---[ \t]*$/m)) {
    let split = memo?.get(chunk);
    if (!split) {
      split = splitChunk(chunk);
      memo?.set(chunk, split);
    }
    docs.push(...split.docs);
    problems.push(...split.problems);
  }
  return { docs, problems };
}

function splitChunk(chunk: string): ChunkSplit {
  const docs: RenderedDoc[] = [];
  const problems: OutputProblem[] = [];
  const template = /^# Source: (\S+)/m.exec(chunk)?.[1];
  const at = template ?? 'output';
  // What go-yaml refuses of the output, Argo CD cannot read: the chunk applies nothing (model/yaml/go-refusals.ts).
  const [refused] = [...separatorRefusals(chunk), ...goYamlRefusals(chunk)];
  if (refused) {
    problems.push({ message: `${at}: ${goRefusalMessage(refused, 'Argo CD')}` });
    return { docs, problems };
  }
  for (const object of fastDocuments(chunk) ?? slowDocuments(chunk, at, problems)) {
    if (object === null || object === undefined) continue;
    if (!isMap(object) || typeof object.apiVersion !== 'string' || typeof object.kind !== 'string') {
      problems.push({ message: `${at}: a rendered document is not a Kubernetes object` });
      continue;
    }
    // A List in the output is its items, as Argo CD reads it.
    const objects = object.apiVersion === 'v1' && object.kind === 'List' && Array.isArray(object.items) ? object.items.filter(isMap) : [object];
    for (const o of objects) {
      // Argo CD sets its tracking annotation on every rendered object too; one it cannot set fails the source.
      const tracking = trackingRefusal(o);
      if (tracking) problems.push({ message: `${at}: Argo CD fails the whole source, applying none of it: ${tracking}` });
      else docs.push({ object: o, ...(template ? { template } : {}) });
    }
  }
  return { docs, problems };
}

/** The documents of a chunk as the `yaml` library reads them, each that does not parse a problem instead (what fast-yaml.ts leaves to it). */
function slowDocuments(chunk: string, at: string, problems: OutputProblem[]): unknown[] {
  const out: unknown[] = [];
  // As Argo CD reads the output, with go-yaml: a quoted scalar's continuation lines at any indentation (go-quoted.ts).
  const parsed = readAsGo(
    chunk,
    (text) => parseAllDocuments(text, { uniqueKeys: false, merge: true } as never),
    (docs) => (Array.isArray(docs) ? docs : []).some((d) => d.errors.length > 0),
  );
  for (const doc of Array.isArray(parsed) ? parsed : []) {
    if (doc.errors.length) {
      problems.push({ message: `${at}: ${doc.errors[0]!.message.split('\n')[0]}` });
      continue;
    }
    // As Argo CD reads the output (gitops-engine's SplitYAML, sigs.k8s.io/yaml over go-yaml v2): a plain yes or 0755 as YAML 1.1 reads it.
    asYaml11(doc);
    // An alias bomb in a template's output is refused like one in a manifest.
    try {
      out.push(doc.toJS({ maxAliasCount: 100 }));
    } catch (err) {
      problems.push({ message: `${at}: ${(err as Error).message.split('\n')[0]}` });
    }
  }
  return out;
}

const sameValue = (a: unknown, b: unknown): boolean => a === b || (typeof a === 'object' && a !== null && JSON.stringify(a) === JSON.stringify(b));

/** Every path in a values file whose last key is `key`, found once per file and key. */
function pathsEndingIn(data: unknown, key: string, memo: Map<string, Path[]>): Path[] {
  const hit = memo.get(key);
  if (hit) return hit;
  const out: Path[] = [];
  const walk = (v: unknown, path: (string | number)[]): void => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (isMap(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (k === key) out.push([...path, k]);
        walk(x, [...path, k]);
      }
    }
  };
  walk(data, []);
  memo.set(key, out);
  return out;
}

/** Every scalar of a values file by its text (a string, a number or a boolean), with its path and whether it is a string. */
type ScalarIndex = Map<string, { path: Path; text: boolean }[]>;
function scalarIndex(data: unknown): ScalarIndex {
  const out: ScalarIndex = new Map();
  const walk = (v: unknown, path: (string | number)[]): void => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (isMap(v)) for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
    else if (['string', 'number', 'boolean'].includes(typeof v)) out.set(String(v), [...(out.get(String(v)) ?? []), { path, text: typeof v === 'string' }]);
  };
  walk(data, []);
  return out;
}

/** A command-line flag a chart builds from one value, `--name=value` (`--leader-election-retry-period={{ .retryPeriod }}`). */
const BUILT_FLAG = /^--?([A-Za-z0-9][\w.-]*)=(.*)$/s;

/** A key or flag name as the two are compared: case and dashes aside. */
const bareName = (name: string) => name.replace(/[-_.]/g, '').toLowerCase();

/**
 * The paths of a values file that may have written a flag the chart built: a scalar whose text is the flag's value,
 * under a key that ends the flag's name, case and dashes aside (retryPeriod of --leader-election-retry-period).
 */
function builtFlagPaths(index: ScalarIndex, word: string): Path[] {
  const [, name, value] = BUILT_FLAG.exec(word) ?? [];
  if (name === undefined || value === undefined || value === '') return [];
  return (index.get(value) ?? [])
    .map(({ path }) => path)
    .filter((path) => {
      const key = [...path].reverse().find((p): p is string => typeof p === 'string');
      return key !== undefined && bareName(name).endsWith(bareName(key));
    });
}

/**
 * Positions of a rendered object. A path whose value equals the value of a
 * same-named key in one of the values files (the last file wins, as in Helm)
 * points at that key; failing that, a string found under exactly one key of
 * the values files points there (a chart may rename the key: widgetSize ->
 * size); failing that, a command-line flag the chart built from exactly one
 * value points at that value (builtFlagPaths). Anything else points at the
 * chart source.
 */
export function renderedPositions(
  object: Record<string, unknown>,
  values: readonly DataFile[],
  fallback: (path: Path, target: 'key' | 'value') => FilePosition,
): Positions {
  const memos = values.map(() => new Map<string, Path[]>());
  let scalars: { file: DataFile; index: ScalarIndex }[] | undefined;
  return {
    at(path, target) {
      const key = [...path].reverse().find((p): p is string => typeof p === 'string');
      const value = dig(object, path);
      if (key !== undefined && value !== undefined) {
        for (let i = values.length - 1; i >= 0; i--) {
          const file = values[i]!;
          const match = pathsEndingIn(file.data, key, memos[i]!).find((p) => sameValue(dig(file.data, p), value));
          if (match) return { ...file.positions.at(match, target), file: file.file };
        }
      }
      if (typeof value === 'string' && value.length >= 3) {
        scalars ??= values.map((file) => ({ file, index: scalarIndex(file.data) }));
        const hits = scalars.flatMap(({ file, index }) => (index.get(value) ?? []).filter((s) => s.text).map((s) => ({ file, path: s.path })));
        if (hits.length === 1) return { ...hits[0]!.file.positions.at(hits[0]!.path, target), file: hits[0]!.file.file };
        const built = scalars.flatMap(({ file, index }) => builtFlagPaths(index, value).map((p) => ({ file, path: p })));
        if (built.length === 1) return { ...built[0]!.file.positions.at(built[0]!.path, target), file: built[0]!.file.file };
      }
      return fallback(path, target);
    },
  };
}

export interface ToResourcesInput {
  app: ArgoApp;
  source: AppSource;
  /** How the source is named in messages: `chart falco 7.0.2`. */
  label: string;
  docs: readonly RenderedDoc[];
  values: readonly DataFile[];
  /** Index of the first resource: unique within the Application across its sources. */
  firstIndex: number;
  /** Where an object's paths point when no values key set them (kustomize: the template it came from). */
  templateFor?: (object: Record<string, unknown>) => Positions | undefined;
}

const fieldOf = (source: AppSource) => (source.chart !== undefined ? 'chart' : 'path');

export function toResources(input: ToResourcesInput): Resource[] {
  const { app, source } = input;
  const atSource = (): FilePosition => app.resource.positions.at([...source.at, fieldOf(source)], 'value');
  return input.docs.map((doc, i) => {
    const template = input.templateFor?.(doc.object);
    const metadata = isMap(doc.object.metadata) ? doc.object.metadata : {};
    const annotations = isMap(metadata.annotations) ? metadata.annotations : {};
    const index = input.firstIndex + i;
    return {
      file: app.resource.file,
      doc: app.resource.doc,
      apiVersion: doc.object.apiVersion as string,
      kind: doc.object.kind as string,
      name: typeof metadata.name === 'string' ? metadata.name : '',
      namespace: typeof metadata.namespace === 'string' ? metadata.namespace : undefined,
      object: doc.object,
      positions: renderedPositions(doc.object, input.values, template ? (path, target) => template.at(path, target) : atSource),
      rendered: {
        id: `${app.name}#${index}`,
        app: app.name,
        source: input.label,
        ...(doc.template ? { template: doc.template } : {}),
        ...(typeof annotations['helm.sh/hook'] === 'string' ? { hook: true } : {}),
      },
    };
  });
}
