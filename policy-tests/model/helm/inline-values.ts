/**
 * The values an Application hands a chart beyond its value files: `helm.values`
 * (a YAML string), `helm.valuesObject` (which wins over it, as in Argo CD),
 * `helm.parameters` (`--set` / `--set-string`, typed as Helm's strvals types
 * them: strvals.ts) and `helm.fileParameters` (`--set-file`, the file's
 * text). Each is a data file whose positions point into the
 * Application, so a check that reads values reads these too, and its finding
 * lands on the line a person wrote. Order is Argo CD's (util/helm/cmd.go):
 * value files, then values or valuesObject, then parameters and file parameters.
 */
import { type ParseError } from '../core/findings.ts';
import { readValuesText, type ValuesText } from '../yaml/helm-values.ts';
import { helmRefusesName, helmSetValue, strvalsPath } from './strvals.ts';
import type { LinePos, Path } from '../core/positions.ts';
import { objects } from '../core/dig.ts';
import type { FilePosition, Positions } from '../core/manifest.ts';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ownText, type DataFile, type Repo } from '../repository/repo.ts';
import { embeddedPlacer } from '../yaml/embedded-text.ts';
import { argoEnvsubst, sourceFile } from '../argocd/source-files.ts';
import type { AppSource, ArgoApp } from '../argocd/argocd.ts';

/** Sets `value` at `path`, making maps and lists on the way (a later writer wins, as in Helm; a list grown past its end holds nulls, as Go's make does). */
function setIn(target: Record<string, unknown>, path: Path, value: unknown): void {
  let node: Record<string | number, unknown> = target;
  path.forEach((segment, i) => {
    if (Array.isArray(node) && typeof segment === 'number') for (let n = node.length; n < segment; n++) node[n] = null;
    if (i === path.length - 1) {
      node[segment] = value;
      return;
    }
    const next = node[segment];
    if (next === null || typeof next !== 'object') node[segment] = typeof path[i + 1] === 'number' ? [] : {};
    node = node[segment] as Record<string | number, unknown>;
  });
}

/**
 * Where a path under `base` of a source lands: in the source parameter file that set it, where Argo CD merged one in
 * (source-parameters.ts), else in the Application.
 */
const atSource =
  (app: ArgoApp, source: AppSource, base: Path): Positions['at'] =>
  (path, target) =>
    source.parameterFiles?.placeOf([...base, ...path], target) ?? app.resource.positions.at([...source.at, ...base, ...path], target);

/** A data file over part of an Application: its file, its data, positions inside it. */
function inline(app: ArgoApp, data: unknown, at: Positions['at'], errors: ParseError[] = []): DataFile {
  return { file: app.resource.file, data, positions: { at }, errors };
}

/** The most of a file parameter's file the checks read: a file Helm would be handed past the render's default limit is not read here. */
const FILE_PARAMETER_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The text `--set-file` hands the chart for a file parameter (strvals' file reader: the file's bytes as a string, never
 * typed), its path resolved as Argo CD resolves it (source-files.ts); undefined where it is not a file of this
 * repository the gate can read (the render says why).
 */
function fileParameterText(repo: Repo, on: { app: ArgoApp; source: AppSource }, p: { name: string; path: string }): string | undefined {
  const file = sourceFile(repo, on, String(p.path), `file parameter ${p.name}`);
  if (!('rel' in file)) return undefined;
  const abs = join(repo.root, file.rel);
  try {
    const stat = statSync(abs);
    return stat.isFile() && stat.size <= FILE_PARAMETER_MAX_BYTES ? readFileSync(abs, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The values a source carries in its Application, in Argo CD's order (after its value files); with the repository, a
 * file parameter is the text of its file, else a placeholder naming it.
 */
export function inlineValues(app: ArgoApp, source: AppSource, repo?: Repo): DataFile[] {
  const helm = source.helm;
  if (!helm) return [];
  const out: DataFile[] = [];
  if (helm.valuesObject !== undefined) out.push(inline(app, helm.valuesObject, atSource(app, source, ['helm', 'valuesObject'])));
  else {
    const values = valuesText(app, source, repo);
    if (values) out.push(valuesLayer(app, values));
  }
  const parameters: Record<string, unknown> = {};
  const where = new Map<string, Path>();
  const keyOf = (path: Path) => path.join('\0');
  // Helm applies every --set before every --set-string, whatever their order (pkg/cli/values MergeValues).
  const ordered = (objects(helm.parameters) as NonNullable<typeof helm.parameters>)
    .map((p, i) => ({ p, i }))
    .sort((a, b) => Number(a.p.forceString === true) - Number(b.p.forceString === true));
  for (const { p, i } of ordered) {
    const path = strvalsPath(p.name);
    // Argo CD substitutes its build environment in the value first; one that names the revision it syncs is not
    // rendered (the render says so), and read by no check.
    const value = argoEnvsubst(String(p.value ?? ''), app, source);
    if (path.length === 0 || value === undefined || helmRefusesName(path)) continue;
    setIn(parameters, path, helmSetValue(value, p.forceString === true));
    where.set(keyOf(path), ['helm', 'parameters', i, 'name']);
  }
  (objects(helm.fileParameters) as NonNullable<typeof helm.fileParameters>).forEach((p, i) => {
    const path = strvalsPath(p.name);
    if (path.length === 0 || helmRefusesName(path)) return;
    setIn(parameters, path, (repo && fileParameterText(repo, { app, source }, p)) ?? `<contents of ${p.path}>`);
    where.set(keyOf(path), ['helm', 'fileParameters', i, 'name']);
  });
  if (where.size > 0)
    out.push(
      inline(app, parameters, (path, target) => {
        // A path inside a parameter's value, or a map it made, points at the parameter that wrote it.
        const at = atSource(app, source, []);
        for (let n = path.length; n > 0; n--) {
          const written = where.get(keyOf(path.slice(0, n)));
          if (written) return at(written, target);
        }
        return at([...where.values()][0]!, target);
      }),
    );
  return out;
}

/**
 * `helm.values`: a YAML string Argo CD writes to a file and hands Helm with `--values`, read as Helm 4 reads a values
 * file (model/yaml/helm-values.ts), with a place in the Application (or the parameter file that set it) for each
 * place in the string. Undefined where the source has none, or `valuesObject` wins over it.
 */
function valuesText(
  app: ArgoApp,
  source: AppSource,
  repo: Repo | undefined,
): { read: ValuesText; file: string; place: (pos: LinePos) => FilePosition } | undefined {
  const text = source.helm?.valuesObject === undefined ? source.helm?.values : undefined;
  if (typeof text !== 'string') return undefined;
  const start = atSource(app, source, ['helm', 'values'])([], 'value');
  const file = start.file ?? app.resource.file;
  // In a block scalar (`values: |`), the string's lines stand on the lines after its header, indented. Found when a
  // place is first asked: most values are read by every check that reads a chart's values, and placed by none.
  let placer: ((p: LinePos) => LinePos) | undefined;
  return {
    read: readValuesText(text),
    file,
    place: (pos) => ({
      ...(placer ??= embeddedPlacer(repo && ownText(repo, file), start))(pos),
      ...(start.file === undefined ? {} : { file: start.file }),
    }),
  };
}

type ValuesInApp = NonNullable<ReturnType<typeof valuesText>>;

function valuesLayer(app: ArgoApp, { read, file, place }: ValuesInApp): DataFile {
  // Placed in the file that holds helm.values (the Application, or a source parameter file that set it).
  const errors = read.errors.map((e): ParseError => {
    const { line, col } = place(e);
    return { line, col, check: e.check, message: `${file}: helm.values: ${e.message}` };
  });
  return inline(app, read.data, (path, target) => place(read.at(path, target)), errors);
}

/** What a source's `helm.values` holds that Helm refuses, or reads as YAML 1.1 otherwise than YAML 1.2 does. */
export interface InlineValuesProblem {
  file: string;
  line: number;
  col: number;
  message: string;
  /** Helm refuses the values, and the source does not render; else a plain scalar Helm reads otherwise (yaml11.ts). */
  refused: boolean;
}

/**
 * Why Helm refuses a source's `helm.values`, and the plain scalars in it YAML 1.1 reads otherwise (which the values
 * the checks read already hold as Helm reads them), each at its place in the file that holds it (exactly where the
 * repository holds that file's text: embedded-text.ts).
 */
export function inlineValuesProblems(app: ArgoApp, source: AppSource, repo?: Repo): InlineValuesProblem[] {
  const values = valuesText(app, source, repo);
  if (!values) return [];
  const placed = (at: LinePos, message: string, refused: boolean): InlineValuesProblem => {
    const { line, col } = values.place(at);
    return { file: values.file, line, col, message, refused };
  };
  return [...values.read.errors.map((e) => placed(e, e.message, true)), ...values.read.ambiguities.map((a) => placed(a, a.message, false))];
}
