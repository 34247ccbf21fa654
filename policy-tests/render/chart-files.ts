/**
 * A chart's files as Helm loads them from its folder (in the checkout, or a chart repository's archive extracted as
 * Argo CD extracts it, chart-extract.ts), with every packed subchart (`charts/<name>-<version>.tgz`, as `helm dependency build` vendors it, or
 * as `helm package` packs a dependency) read in where Helm loads it, as the folder `charts/<name>/`. Its interface
 * (the scope the unused-values check reads) and its traits (chart-traits.ts) come from these files, so a vendored
 * subchart's values are its own, and its templates count like the chart's.
 */
import { readFileSync } from 'node:fs';
import { list, type ReadEntry } from 'tar';
import { join } from 'node:path';
import type { ChartScope } from '../model/argocd/rendered.ts';
import { checkoutTree, type Repo } from '../model/repository/repo.ts';
import { parseDocument } from 'yaml';
import { asYaml11 } from '../model/yaml/yaml11.ts';
import { isMap } from '../model/core/dig.ts';
import { NO_TRAITS, withFile, type ChartTraits } from './chart-traits.ts';
import { keptInFolder } from './helmignore.ts';
import { fastValue } from './fast-yaml.ts';
import { readValuesText } from '../model/yaml/helm-values.ts';
import { RenderRefused, unpackedTooLarge } from './limits.ts';

/** A chart archive Helm loads as a subchart: a `.tgz` directly in a `charts/` folder, its name not starting with `_` or `.`. */
const PACKED_SUBCHART = /(^|\/)charts\/[^/_.][^/]*\.tgz$/;

/** Anything under a subchart Helm passes over (`charts/_draft/`, `charts/.old.tgz`), at any depth. */
const PASSED_OVER = /(^|\/)charts\/[_.][^/]*(\/|$)/;

/** Packed subcharts inside packed subcharts: deeper than any chart nests, and a bound on an archive of archives. */
const MAX_DEPTH = 8;

const INTERFACE = /(^|\/)(Chart\.yaml|values\.yaml)$|(^|\/)templates\//;

/** How much the archives of one chart may unpack to, all of them together, and the archive named when it is passed. */
interface Budget {
  left: number;
  limit: number;
  archive: string;
}

/** One chart's reading: where each file goes, the budget its archives share, and how deep in packed subcharts it is. */
interface Reading {
  onFile: (rel: string, bytes: Buffer) => void;
  budget: Budget;
  depth: number;
}

/** What tar calls a regular file: Helm reads each as one, whatever its type letter. */
const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);

/**
 * Each file of a packed subchart's archive (`onFile` with its path under the archive's top folder, prefixed by
 * `under`), its own packed subcharts read in under `charts/<their top folder>/`. A subchart archive that does not read (corrupt, too
 * deep) is handed on as it stands, so chart-traits counts it as unread.
 */
async function readArchive(bytes: Buffer, under: string, reading: Reading): Promise<string | undefined> {
  const { onFile, budget, depth } = reading;
  const nested: { rel: string; bytes: Buffer }[] = [];
  let refused: RenderRefused | undefined;
  let top: string | undefined;
  const onReadEntry = (entry: ReadEntry) => {
    // A small archive can unpack to gigabytes: count what it holds, and stop reading at the limit.
    budget.left -= entry.size ?? 0;
    if (budget.left < 0) refused ??= unpackedTooLarge(budget.archive, budget.limit);
    const rel = entry.path.replace(/^[^/]+\//, '');
    if (refused || !FILE_TYPES.has(entry.type)) {
      entry.resume();
      return;
    }
    top ??= entry.path.split('/')[0];
    const chunks: Buffer[] = [];
    entry.on('data', (c: Buffer) => chunks.push(c));
    entry.on('end', () => {
      const bytes = Buffer.concat(chunks);
      if (PACKED_SUBCHART.test(rel) && depth < MAX_DEPTH) nested.push({ rel, bytes });
      else onFile(`${under}${rel}`, bytes);
    });
  };
  // Strict: a subchart archive that is not whole is handed on unread, never read in part.
  const parser = list({ strict: true, onReadEntry });
  await new Promise<void>((resolve, reject) => {
    parser.on('end', resolve);
    parser.on('error', reject);
    parser.end(bytes);
  });
  if (refused) throw refused;
  for (const { rel, bytes } of nested) await readSubchart(bytes, `${under}${rel}`, { ...reading, depth: depth + 1 });
  return top;
}

/** A packed subchart at `path`, read in as the folder beside it that Helm loads it as, or handed on whole where it does not read. */
async function readSubchart(bytes: Buffer, path: string, reading: Reading) {
  const { onFile } = reading;
  const files: [string, Buffer][] = [];
  let top: string | undefined;
  try {
    top = await readArchive(bytes, '', { ...reading, onFile: (rel, b) => files.push([rel, b]) });
  } catch (err) {
    if (err instanceof RenderRefused) throw err;
  }
  // The chart's name, as `helm package` writes its top folder; anything else is handed on unread.
  if (!top || !/^[^/.][^/]*$/.test(top) || files.length === 0) {
    onFile(path, bytes);
    return;
  }
  const folder = `${path.slice(0, path.lastIndexOf('/') + 1)}${top}/`;
  for (const [rel, b] of files) onFile(`${folder}${rel}`, b);
}

interface ChartFiles {
  chartYaml?: string;
  values?: string;
  templates: string[];
}

/** Builds the scope tree from the interface files of a chart (paths relative to its top folder, subcharts under `charts/<name>/`). */
function chartScopeFromFiles(
  files: ReadonlyMap<string, string>,
  /** Read from every file as it came (the interface keeps only Chart.yaml, values.yaml and the templates). */
  traits: ChartTraits,
): ChartScope {
  const byChart = new Map<string, ChartFiles>();
  for (const [path, text] of files) {
    // `charts/<sub>/` nests; the chart a file belongs to is everything before its last `charts/<name>/`.
    const m = /^((?:charts\/[^/]+\/)*)(Chart\.yaml|values\.yaml|templates\/.+)$/.exec(path);
    if (!m) continue;
    const entry = byChart.get(m[1]!) ?? { templates: [] };
    if (m[2] === 'Chart.yaml') entry.chartYaml = text;
    else if (m[2] === 'values.yaml') entry.values = text;
    else entry.templates.push(text);
    byChart.set(m[1]!, entry);
  }
  const build = (prefix: string): ChartScope => {
    const files = byChart.get(prefix) ?? { templates: [] };
    const meta = (safeYaml(files.chartYaml) ?? {}) as { name?: string; dependencies?: { name?: string; alias?: string }[] };
    const subcharts = new Map<string, ChartScope>();
    // Helm's loader (pkg/chart/v2/loader/load.go) passes over a subchart whose name starts with `_` or `.`.
    for (const sub of [...byChart.keys()].filter((p) => p.startsWith(prefix) && /^charts\/[^/_.][^/]*\/$/.test(p.slice(prefix.length)))) {
      const scope = build(sub);
      const aliases = (meta.dependencies ?? []).filter((d) => d.name === scope.name && d.alias).map((d) => d.alias!);
      for (const key of aliases.length ? aliases : [scope.name]) subcharts.set(key, scope);
    }
    return { name: meta.name ?? prefix, defaults: chartDefaults(files.values), templates: files.templates.join('\n'), subcharts };
  };
  return { ...build(''), ...traits };
}

/**
 * A chart's values.yaml, as Helm 4 loads it: one document read fast, or, where there are more (or only the `yaml`
 * library may read it), its documents merged as Helm merges them (model/yaml/helm-values.ts).
 */
function chartDefaults(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  const value = fastValue(text)?.value ?? readValuesText(text).data;
  return isMap(value) ? value : {};
}

function safeYaml(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  const fast = fastValue(text);
  if (fast) return fast.value;
  try {
    // As Helm reads a Chart.yaml (sigs.k8s.io/yaml over go-yaml v2), as the fast reader does: YAML 1.1's plain scalars.
    const doc = parseDocument(text);
    asYaml11(doc);
    return doc.errors.length ? undefined : doc.toJS({ maxAliasCount: 100 });
  } catch {
    return undefined;
  }
}

/** What the scope and traits are built from: every file read for the traits, the interface's kept as text. */
function collector() {
  const files = new Map<string, string>();
  let traits = NO_TRAITS;
  return {
    onFile: (rel: string, bytes: Buffer) => {
      // Helm's loader drops a subchart whose name starts with `_` or `.` whole (pkg/chart/v2/loader/load.go): none of
      // its files is loaded, not even as the chart's `.Files`, so none can read a value or print anything.
      if (PASSED_OVER.test(rel)) return;
      const text = bytes.toString('utf8');
      // Every file is read for what it may hand to `tpl` (chart-traits.ts); the scope keeps only the chart's interface.
      traits = withFile(traits, rel, text);
      if (INTERFACE.test(rel)) files.set(rel, text);
    },
    scope: (): ChartScope => chartScopeFromFiles(files, traits),
  };
}

/**
 * A chart's interface and traits from the files of its folder (`[path in the chart, path on disk]`; a file://
 * dependency's under `charts/<name>/`), a packed subchart among them read in.
 */
export async function chartScopeFromFolder(files: readonly (readonly [string, string])[], unpackedLimit = Infinity): Promise<ChartScope> {
  const seen = collector();
  // One budget for all of them: the folder's packed subcharts together may unpack to the limit.
  const budget: Budget = { left: unpackedLimit, limit: unpackedLimit, archive: '' };
  for (const [rel, abs] of files) {
    const bytes = readFileSync(abs);
    if (!PACKED_SUBCHART.test(rel)) seen.onFile(rel, bytes);
    else {
      budget.archive = rel.split('/').pop()!;
      await readSubchart(bytes, rel, { onFile: seen.onFile, budget, depth: 1 });
    }
  }
  return seen.scope();
}

/** A chart folder's files, from git's list of the checkout: a chart may lie anywhere in the repository, not only under the manifest roots. */
export function chartFiles(repo: Repo, dir: string): string[] {
  const prefix = `${dir}/`;
  return checkoutTree(repo)
    .filter((f) => f.startsWith(prefix))
    .sort();
}

/**
 * The files of a chart folder as chartScopeFromFolder takes them: each path in the chart (under `under`), and on disk;
 * only those Helm's loader keeps by the folder's `.helmignore` (helmignore.ts).
 */
export function folderEntries(repo: Repo, dir: string, under = ''): [string, string][] {
  const files = chartFiles(repo, dir).map((f) => f.slice(dir.length + 1));
  return keptInFolder(join(repo.root, dir), files).map((f) => [`${under}${f}`, join(repo.root, dir, f)]);
}
