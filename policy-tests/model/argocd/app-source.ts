/**
 * One source of an Application as Argo CD 3 reads it (ApplicationSource): its fields read from the object, with
 * the YAML path it sits at for findings. The source parameter files merged into one are source-parameters.ts's.
 */
import { obj, type Obj } from '../core/dig.ts';
import type { FilePosition } from '../core/manifest.ts';
import type { Path, PathSegment } from '../core/positions.ts';
import { scalarText } from '../core/text.ts';
import type { ParameterFileProblem } from './source-parameters.ts';

export interface AppSource {
  /** YAML path of this source inside the Application, for findings. */
  at: PathSegment[];
  repoURL: string;
  targetRevision: string;
  path?: string;
  chart?: string;
  ref?: string;
  directory?: { recurse?: boolean; include?: string; exclude?: string; jsonnet?: Record<string, unknown> };
  helm?: HelmOptions;
  /** Argo CD's kustomize options on the source (namePrefix, images, ...), as written. */
  kustomize?: Record<string, unknown>;
  /** A config management plugin block, as written: Argo CD hands the folder to a sidecar the gate cannot run. */
  plugin?: Record<string, unknown>;
  /**
   * The source parameter files Argo CD merged into this source before it picks the tool (source-parameters.ts), what
   * it makes of them that a reader would not expect, and where a path of the source was set by one of them.
   */
  parameterFiles?: { files: string[]; problems: ParameterFileProblem[]; placeOf: (path: Path, target: 'key' | 'value') => FilePosition | undefined };
}

/** The `helm` block of a source, as Argo CD 3 reads it. */
export interface HelmOptions {
  valueFiles?: string[];
  releaseName?: string;
  namespace?: string;
  /** Inline values: `valuesObject` wins over the `values` string, as in Argo CD. */
  values?: string;
  valuesObject?: Record<string, unknown>;
  parameters?: { name: string; value: string; forceString?: boolean }[];
  fileParameters?: { name: string; path: string }[];
  skipCrds?: boolean;
  skipTests?: boolean;
  skipSchemaValidation?: boolean;
  ignoreMissingValueFiles?: boolean;
  kubeVersion?: string;
  apiVersions?: string[];
}

/** One exact chart version (1.2.3, v1.2.3, 1.2.3-rc.1): no range, no *, no latest. */
export const isExactChartVersion = (version: string): boolean => /^v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/.test(version);

/**
 * What Argo CD refuses of the `ref` keys of an Application's `sources` (util/argo GetRefSources, run on `spec.sources`
 * alone when it validates the spec and when it compares): a key of other than letters, digits, `_` and `-`, and a key
 * two sources share. Either fails the whole Application: it never syncs. Each with the source it stands at.
 */
export function refProblems(sources: readonly AppSource[]): { source: AppSource; message: string }[] {
  const seen = new Set<string>();
  const out: { source: AppSource; message: string }[] = [];
  for (const source of sources) {
    if (source.at[1] !== 'sources' || !source.ref) continue;
    if (!/^[a-zA-Z0-9_-]+$/.test(source.ref))
      out.push({ source, message: `sources.ref ${source.ref} cannot contain any special characters except '_' and '-'` });
    else if (seen.has(source.ref)) out.push({ source, message: 'invalid sources: multiple sources had the same `ref` key' });
    seen.add(source.ref);
  }
  return out;
}

/** A field that must be a string: what else it holds counts as absent. */
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function toSource(raw: unknown, at: PathSegment[]): AppSource {
  const s = obj(raw);
  const directory = s.directory === undefined ? undefined : obj(s.directory);
  const helm = s.helm === undefined ? undefined : obj(s.helm);
  return {
    at,
    repoURL: str(s.repoURL) ?? '',
    targetRevision: str(s.targetRevision) ?? '',
    path: str(s.path),
    chart: str(s.chart),
    ref: str(s.ref),
    directory: directory && {
      recurse: directory.recurse === true,
      include: str(directory.include),
      exclude: str(directory.exclude),
      ...(directory.jsonnet === undefined ? {} : { jsonnet: obj(directory.jsonnet) }),
    },
    helm: helm && toHelmOptions(helm),
    kustomize: s.kustomize === undefined ? undefined : obj(s.kustomize),
    plugin: s.plugin === undefined ? undefined : obj(s.plugin),
  };
}

const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);

function toHelmOptions(helm: Obj): HelmOptions {
  const entries = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);
  return {
    valueFiles: strings(helm.valueFiles),
    releaseName: str(helm.releaseName),
    namespace: str(helm.namespace),
    values: str(helm.values),
    valuesObject: helm.valuesObject === undefined ? undefined : obj(helm.valuesObject),
    parameters:
      helm.parameters === undefined
        ? undefined
        : entries(helm.parameters).map((p) => ({
            name: str(p.name) ?? '',
            value: p.value === undefined ? '' : scalarText(p.value),
            forceString: p.forceString === true,
          })),
    fileParameters:
      helm.fileParameters === undefined ? undefined : entries(helm.fileParameters).map((p) => ({ name: str(p.name) ?? '', path: str(p.path) ?? '' })),
    skipCrds: bool(helm.skipCrds),
    skipTests: bool(helm.skipTests),
    skipSchemaValidation: bool(helm.skipSchemaValidation),
    ignoreMissingValueFiles: bool(helm.ignoreMissingValueFiles),
    kubeVersion: str(helm.kubeVersion),
    apiVersions: strings(helm.apiVersions),
  };
}
