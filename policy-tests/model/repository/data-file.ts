/**
 * The files under the manifest roots that are not manifests, by Argo CD's glob dialect: which they are (Helm values,
 * facts, kustomize's files, Argo CD's parameter files, a local chart's own files), how each is read into a data file
 * (its data, where each key stands, what its parser said), and what the loader says of one it cannot read.
 */
import { parse as parseToml } from 'smol-toml';
import type { Positions } from '../core/manifest.ts';
import type { Finding, ParseError } from '../core/findings.ts';
import { readValuesText, withoutPlace } from '../yaml/helm-values.ts';
import { argoGlobMatch } from '../core/glob.ts';
import { perKey } from '../core/per-object.ts';

export const MANIFEST_EXTENSIONS = ['.yaml', '.yml', '.json'] as const;

/**
 * A local chart's Chart.yaml and templates. Templates are Go templates, not YAML: they are never parsed here (the
 * render tier reads them through Helm), and judged as manifests they would fail on valid `{{ ... }}` text.
 */
const CHART_SOURCE_PATTERN = '{Chart.yaml,*/Chart.yaml,*/templates/*}';
export const isChartSource = (file: string) => argoGlobMatch(CHART_SOURCE_PATTERN, file);

/** Argo CD's source parameter files, wherever a source path puts them (gobwas: `*` crosses `/`). */
const SOURCE_PARAMETER_PATTERN = '{.argocd-source*.yaml,*/.argocd-source*.yaml}';

/**
 * Files under the roots that look like manifests but are not Kubernetes
 * objects. Argo CD must never apply them; the argocd-root-discovery check
 * proves that every directory source excludes them. Argo CD glob dialect.
 */
export const NON_MANIFEST_PATTERNS: readonly { pattern: string; reason: string }[] = [
  { pattern: '{values.yaml,*/values.yaml,*/values-*.yaml}', reason: 'Helm values, consumed by a chart source through $values' },
  { pattern: '{*/package.json,*/package-lock.json,*/tsconfig*.json}', reason: 'Node.js tooling of a workload built from this repo' },
  { pattern: '*/settings/*', reason: 'app rebuild settings, read by scripts, never applied' },
  { pattern: '*/payloads/*', reason: 'webhook payloads other systems push (documentation and test input), never applied' },
  { pattern: '*/tests/*', reason: 'tool test files (promtool rule tests), never applied' },
  { pattern: '*/metrics-catalog/*', reason: 'the metrics catalog: what each scraped exporter exposes, read by the metrics-join check, never applied' },
  { pattern: '*/facts/*', reason: 'facts the policy checks read (upstream rule names, image lists), never applied' },
  {
    pattern: '*/appset/*',
    reason: "an ApplicationSet's parameter files: its git files generator reads them (model/appset/params.ts), Argo CD never applies them",
  },
  { pattern: '*/patches/*', reason: 'kustomize patches: partial objects kustomize merges into the resources it builds, never applied as they are' },
  {
    pattern: '{kustomization.yaml,kustomization.yml,*/kustomization.yaml,*/kustomization.yml}',
    reason: "kustomize's own file, read by kustomize when Argo CD builds the folder, never applied",
  },
  {
    pattern: SOURCE_PARAMETER_PATTERN,
    reason:
      "Argo CD's source parameter files: its repo-server merges them into a source's options, never applies them (the gate merges them as it does: model/argocd/source-parameters.ts)",
  },
  {
    pattern: CHART_SOURCE_PATTERN,
    reason: "a local Helm chart's own files (Chart.yaml, templates): Helm renders them through a chart source, never applied as they are",
  },
];

/**
 * What follows from a data file that does not parse, for the files whose readers would not say it: Helm (which says it
 * only where the chart renders) and the gate's own checks (which read the values, and have none). The other data
 * files' readers say it themselves: Argo CD's parameter files, the settings, the payloads, kustomize's files.
 */
export function unparsedConsequence(file: string): string | undefined {
  if (isHelmValues(file)) return 'Helm refuses this values file, so no chart source that lists it renders';
  if (argoGlobMatch('{*/facts/*,*/metrics-catalog/*}', file)) return 'the checks that read this file judge without it';
  return undefined;
}

/** Helm values files: data files a YAML 1.1 reader consumes. */
export const isHelmValues = (file: string) => argoGlobMatch(NON_MANIFEST_PATTERNS[0]!.pattern, file);

/** Argo CD's source parameter files (`.argocd-source.yaml`, `.argocd-source-<app>.yaml`), which it reads with sigs.k8s.io/yaml: YAML 1.1 too. */
export const isSourceParameterFile = (file: string) => argoGlobMatch(SOURCE_PARAMETER_PATTERN, file);

export function isManifestPath(path: string): boolean {
  return MANIFEST_EXTENSIONS.some((ext) => path.endsWith(ext));
}

/** By path: asked of every file in every view of the repository (the mutation runs make hundreds). */
export const isNonManifest: (path: string) => boolean = perKey(20_000, (path: string) => NON_MANIFEST_PATTERNS.some((p) => argoGlobMatch(p.pattern, path)));

export interface DataFile {
  file: string;
  data: unknown;
  positions: Positions;
  /** Why its reader refuses it, each at its place: the loader's finding (unparsedFinding), which the checks that read it follow. */
  errors: ParseError[];
  /** For Helm values files: plain scalars Helm (YAML 1.1) reads differently from this gate (YAML 1.2). */
  ambiguities?: { line: number; col: number; message: string }[];
}

/**
 * TOML (wrangler.toml) through smol-toml. It keeps no positions, so a path
 * resolves to the first line that assigns its last key: enough to point a
 * human at `routes` or `crons`.
 */
export function parseTomlFile(file: string, text: string): DataFile {
  const lines = text.split('\n');
  const positions: Positions = {
    at(path) {
      const key = [...path].reverse().find((p) => typeof p === 'string');
      const index = key === undefined ? -1 : lines.findIndex((l) => new RegExp(`^\\s*"?${String(key).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"?\\s*=`).test(l));
      return { line: index + 1 || 1, col: 1 };
    },
  };
  try {
    return { file, data: parseToml(text), positions, errors: [] };
  } catch (err) {
    // smol-toml's TomlError says where (line, column); the message's first line says why.
    const { line = 1, column = 1, message } = err as { line?: number; column?: number; message: string };
    return { file, data: undefined, positions, errors: [{ line, col: column, message: message.split('\n')[0]!, check: 'yaml-syntax' }] };
  }
}

/** A Helm values file, as Helm 4 reads it (model/yaml/helm-values.ts: its documents merged); each error at its place. */
export function valuesDataFile(file: string, text: string): DataFile {
  const read = readValuesText(text);
  return {
    file,
    data: read.data,
    positions: { at: read.at },
    errors: read.errors,
    ...(read.ambiguities.length ? { ambiguities: read.ambiguities } : {}),
  };
}

/** Positions in a values file parsed by an earlier run: read again, once, only when a finding needs one. */
export function lazyValuesPositions(text: string): Positions {
  return { at: (path, target) => readValuesText(text).at(path, target) };
}

/** A data file's parse error as the loader's finding, under the check its reader gave it, with what follows from it (`consequence`). */
export function unparsedFinding(file: string, { line, col, message, check }: ParseError, consequence: string): Finding {
  return {
    file,
    line,
    col,
    check,
    message: `${withoutPlace(message)}; ${consequence}`,
    fix: 'fix the file at that line: its readers take nothing from it until it parses',
  };
}
