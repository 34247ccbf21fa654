/**
 * Tempo's configuration as Tempo 2.10 reads it (cmd/tempo/main.go: `yaml.UnmarshalStrict` into its Config, after
 * expanding the environment where `-config.expand-env` is given): a key its struct has no field for stops it at start.
 * The structs are the reference the repository keeps (`monitoring/tempo/facts/config-reference.yaml`, from Tempo's
 * manifest, its root struct and its source's field names). A key the manifest's struct lacks but some struct of Tempo
 * has is taken (the manifest leaves out fields whose default is empty), and said not judged; a key no struct of
 * Tempo's has is refused. Field types are not judged. Where the tempo chart (2.x) writes the values into the file:
 * its `config` template, each block from a values key.
 */
import { dig, isMap } from '../core/dig.ts';
import type { Path } from '../core/positions.ts';
import type { Resource } from '../core/manifest.ts';
import type { DataFile } from '../repository/data-file.ts';
import { referenceFile } from '../helm/reference-file.ts';
import { renderedByChart, renderedFile, type RenderedFile } from '../helm/chart-output.ts';
import { registeredFlagsOf, type RegisteredFlags } from '../command-lines/registered-flags.ts';

export const TEMPO_CHART = 'tempo';
export const TEMPO_CONFIG_KEY = 'tempo.yaml';
export const TEMPO_REFERENCE = 'monitoring/tempo/facts/config-reference.yaml';

/** Where the chart's `config` template writes a values key, as it is (toYaml): the file's path, and the values'. */
export const TEMPO_VALUES_BLOCKS: readonly { file: Path; values: Path }[] = [
  { file: ['ingester'], values: ['tempo', 'ingester'] },
  { file: ['server'], values: ['tempo', 'server'] },
  { file: ['storage'], values: ['tempo', 'storage'] },
  { file: ['querier'], values: ['tempo', 'querier'] },
  { file: ['query_frontend'], values: ['tempo', 'queryFrontend'] },
  { file: ['overrides'], values: ['tempo', 'overrides'] },
  { file: ['metrics_generator', 'processor'], values: ['tempo', 'metricsGenerator', 'processor'] },
  { file: ['metrics_generator', 'registry'], values: ['tempo', 'metricsGenerator', 'registry'] },
  { file: ['distributor', 'receivers'], values: ['tempo', 'receivers'] },
];

type Tree = { readonly [key: string]: Tree | '.' };

/** The fields a reference holds, read from its document. */
export interface TempoFields {
  version: string;
  chartVersion: string;
  fields: Tree;
  root: ReadonlySet<string>;
  names: ReadonlySet<string>;
  /** The flags Tempo's flag set holds, and the prefixes its modules register theirs under (model/tempo/flags.ts). */
  flags: RegisteredFlags | undefined;
}

export type TempoReference = ({ ok: true; data: DataFile } & TempoFields) | { ok: false; data: DataFile; problem: string };

/** A reference document's fields, or why it holds none. */
export function tempoFields(doc: unknown): TempoFields | { problem: string } {
  const [version, chartVersion, fields, root, names] = ['version', 'pin.version', 'fields', 'root', 'names'].map((k) => dig(doc, k.split('.')));
  if (typeof version !== 'string' || typeof chartVersion !== 'string' || !isMap(fields) || !Array.isArray(root) || !Array.isArray(names))
    return { problem: 'it needs version, pin.version, fields, root and names (npm run tempo:reference writes them)' };
  const asSet = (list: unknown[]) => new Set(list.filter((x): x is string => typeof x === 'string'));
  return { version, chartVersion, fields: fields as Tree, root: asSet(root), names: asSet(names), flags: registeredFlagsOf(doc) };
}

export const tempoReference = referenceFile(TEMPO_REFERENCE, tempoFields);

export interface TempoVerdict {
  /** Keys no struct of Tempo's has: Tempo refuses the file. */
  refused: { path: Path; message: string }[];
  /** Keys the manifest's struct lacks but some struct of Tempo's has: taken, not judged. */
  taken: Path[];
}

/** Every key of `doc` under `at` (a path of Tempo's file) held to the reference. */
export function tempoKeys(doc: unknown, at: Path, ref: TempoFields): TempoVerdict {
  const verdict: TempoVerdict = { refused: [], taken: [] };
  let tree: Tree | '.' = ref.fields;
  for (const key of at) tree = tree === '.' ? '.' : (tree[String(key)] ?? '.');
  const walk = (value: unknown, node: Tree | '.', path: Path) => {
    if (!isMap(value) || node === '.') return;
    for (const [key, item] of Object.entries(value)) {
      const next = node[key];
      if (next !== undefined) walk(item, next, [...path, key]);
      else if (path.length === 0 && ref.root.has(key)) continue;
      else if (ref.names.has(key)) verdict.taken.push([...path, key]);
      else verdict.refused.push({ path: [...path, key], message: `field ${key} not found in type ${path.length ? path.join('.') : 'app.Config'}` });
    }
  };
  walk(doc, tree, [...at]);
  return verdict;
}

/** The tempo.yaml a ConfigMap or Secret the tempo chart rendered holds. */
export const tempoConfigFile = (r: Resource): RenderedFile | undefined => (renderedByChart(r, TEMPO_CHART) ? renderedFile(r, TEMPO_CONFIG_KEY) : undefined);
