/**
 * A values text as Helm 4 reads it: a values file of the repository, or an Application's `helm.values`, which Argo CD
 * writes to a file and hands Helm with `--values` (reposerver/repository/repository.go, v3.5.1). Helm 4.2, the Helm
 * Argo CD v3.5.1 ships (hack/tool-versions.sh), reads it with `LoadValues` (pkg/chart/loader): apimachinery's
 * YAMLReader cuts the text at each line that starts with `---`, refusing one that goes on with anything but a comment;
 * sigs.k8s.io/yaml reads each piece into a map (go-yaml v2, which reads a piece's first document, with its leniencies
 * and refusals: go-quoted.ts, go-refusals.ts); and the maps are merged in order (`MergeMaps`: a later piece's key over
 * an earlier's, two maps merged key by key, anything else replaced). So a values file of several documents is one set
 * of values, where a single-document reader refuses it (Helm 3 read the first document alone).
 */
import type { Document, LineCounter, YAMLError } from 'yaml';
import { depthIn, isMap } from '../core/dig.ts';
import { perKey } from '../core/per-object.ts';
import { STACK_OVERFLOW, type ParseError } from '../core/findings.ts';
import { locate, type LinePos, type Path } from '../core/positions.ts';
import { duplicateKeys } from './duplicate-keys.ts';
import { readDocuments } from './go-quoted.ts';
import { goRefusalMessage, goYamlRefusals, separatorRefusals } from './go-refusals.ts';
import { yaml11Ambiguities, type Ambiguity } from './yaml11.ts';

/** Why Helm refuses a values text, at its place (model/core/findings.ts). */
export type ValuesProblem = ParseError;

export interface ValuesText {
  /** The merged values; undefined where Helm refuses the text. */
  data: Record<string, unknown> | undefined;
  /** Why Helm refuses it, each at its place: empty where it reads it. */
  errors: ValuesProblem[];
  /** Plain scalars YAML 1.1 reads otherwise (yaml11.ts); the values hold Helm's reading. */
  ambiguities: Ambiguity[];
  /** Where a path of the merged values was written: in the last piece that sets it, else its deepest ancestor's. */
  at: (path: Path, target: 'key' | 'value') => LinePos;
}

/** The `yaml` library's message without the place it appends (` at line 2, column 1:`), which the caller says its own way. */
export const withoutPlace = (message: string) => message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');

/**
 * The `yaml` library's syntax errors, each at its place. Its own stack overflow, which it reports as a syntax error in
 * those words (as manifest.ts reads it), is the nesting error, once: on a busy stack it is recorded at every level the
 * parser unwinds through, and a regular expression it runs with the stack nearly spent says so in its words too.
 */
export function yamlLibraryErrors(errors: readonly YAMLError[]): ParseError[] {
  const out = errors.map((e): ParseError => {
    const at = e.linePos?.[0] ?? { line: 1, col: 1 };
    const message = withoutPlace(e.message);
    return STACK_OVERFLOW.test(message)
      ? { ...at, message: 'nests deeper than the parser can take', check: 'nesting-depth' }
      : { ...at, message, check: 'yaml-syntax' };
  });
  const overflow = out.find((e) => e.check === 'nesting-depth');
  return out.filter((e) => e.check !== 'nesting-depth' || e === overflow);
}

/** Go's name for a JSON value's type, as encoding/json says it cannot decode one into a map. */
const goJsonType = (value: unknown) => (Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value);

/** Helm's MergeMaps (pkg/chart/v2/loader): `b`'s keys over `a`'s, two maps merged key by key, anything else (a null too) replaced. */
export function mergeMaps(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out = { ...a };
  for (const [key, value] of Object.entries(b)) out[key] = isMap(value) && isMap(out[key]) ? mergeMaps(out[key], value) : value;
  return out;
}

/** The document go-yaml reads of each piece the splitter cuts: the first one that starts in it. */
function piecesOf(text: string, docs: readonly Document.Parsed[]): Document.Parsed[] {
  const cuts = [...text.matchAll(/^---/gm)].map((m) => m.index);
  const seen = new Set<number>();
  return docs.filter((doc) => {
    const start = doc.contents?.range?.[0] ?? doc.range[0];
    const piece = cuts.filter((cut) => cut <= start).length;
    if (seen.has(piece)) return false;
    seen.add(piece);
    return true;
  });
}

/**
 * Read once per text for the process: an Application's helm.values is read by every check that reads a chart's values,
 * by the render and by the repo-server check; a values file's positions again when a finding needs one.
 */
export const readValuesText: (text: string) => ValuesText = perKey(500, readValuesTextUncached);

function readValuesTextUncached(text: string): ValuesText {
  const { docs: all, lineCounter, read } = readDocuments(text);
  const docs = piecesOf(read, all);
  const place = (offset: number, message: string): ValuesProblem => ({ ...lineCounter.linePos(offset), message, check: 'yaml-syntax' });
  const errors = yamlLibraryErrors(all.flatMap((d) => d.errors));
  if (errors.length === 0) errors.push(...goRefusals(text, docs, lineCounter, place));
  const ambiguities = errors.length === 0 ? docs.flatMap((d) => yaml11Ambiguities(d, lineCounter)) : [];
  const pieces = errors.length === 0 ? docs.map((d) => ({ doc: d, data: toValues(d, errors, place) })) : [];
  const data = errors.length === 0 ? pieces.reduce<Record<string, unknown>>((merged, p) => mergeMaps(merged, p.data ?? {}), {}) : undefined;
  return {
    data,
    errors,
    ambiguities,
    at(path, target) {
      let best = pieces[0];
      for (const p of pieces) if (!best || depthIn(p.data, path) >= depthIn(best.data, path)) best = p;
      const doc = best?.doc ?? all[0];
      return doc ? locate(doc, lineCounter, path, target) : { line: 1, col: 1 };
    },
  };
}

/** What the splitter and go-yaml refuse, and a key written twice, which the gate refuses of every data file: the first of each. */
function goRefusals(
  text: string,
  docs: readonly Document.Parsed[],
  lineCounter: LineCounter,
  place: (offset: number, message: string) => ValuesProblem,
): ValuesProblem[] {
  // The splitter reads the lines as written (the mended text keeps their numbers).
  const [cut] = separatorRefusals(text);
  if (cut)
    return [
      {
        line: text.slice(0, cut.offset).split('\n').length,
        col: 1,
        check: 'yaml-syntax',
        message: `${cut.message} (Helm 4 cuts a values text at each line that starts with ---, and refuses one that goes on with more than a comment)`,
      },
    ];
  const duplicate = docs.flatMap((d) => duplicateKeys(d, lineCounter))[0];
  if (duplicate)
    return [{ line: duplicate.line, col: duplicate.col, message: `duplicate key "${duplicate.key}": Map keys must be unique`, check: 'duplicate-key' }];
  const [refused] = goYamlRefusals(text);
  return refused ? [place(refused.offset, goRefusalMessage(refused, 'Helm and Argo CD'))] : [];
}

/** One piece's values, as sigs.k8s.io/yaml decodes it into Helm's map: a piece that is no map nor null is refused. */
function toValues(
  doc: Document.Parsed,
  errors: ValuesProblem[],
  place: (offset: number, message: string) => ValuesProblem,
): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    // An alias bomb (or an alias to nothing) is refused in one line, as in a manifest.
    errors.push(place(doc.range[0], (err as Error).message.split('\n')[0]!));
    return undefined;
  }
  if (value === null || value === undefined || isMap(value)) return (value ?? undefined) as Record<string, unknown> | undefined;
  errors.push(
    place(
      doc.contents?.range?.[0] ?? doc.range[0],
      `cannot unmarshal yaml document: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${goJsonType(value)} into Go value of type map[string]interface {}`,
    ),
  );
  return undefined;
}
