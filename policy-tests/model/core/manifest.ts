/**
 * Parses one manifest file (multi-document YAML, or JSON, both through the
 * `yaml` package) into resources that remember where every node came from.
 */
import type { Document, LineCounter, YAMLError } from 'yaml';
import { duplicateKeys } from '../yaml/duplicate-keys.ts';
import { STACK_OVERFLOW, type Finding } from './findings.ts';
import { isLfsPointer } from './text.ts';
import { YAML11_FIX, yaml11Ambiguities } from '../yaml/yaml11.ts';
import { exactIntegers, mayHoldLargeIntegers, under, type ExactInteger } from '../yaml/exact-integers.ts';
import { joined, placesFrom, placeTable, type PlaceTable } from '../yaml/place-table.ts';
import { fastManifest, type FastDocument } from '../yaml/fast-manifest.ts';
import { readDocuments } from '../yaml/go-quoted.ts';
import { goRefusalFix, goRefusalMessage, manifestRefusals } from '../yaml/go-refusals.ts';

import { locate, type LinePos, type Path } from './positions.ts';
import { trackingRefusal } from '../argocd/tracking.ts';

export interface Resource {
  file: string;
  /** Index of the document in its file (0-based, counting blank documents too). */
  doc: number;
  /** Index in the document's `items` when the document is a List (what `kubectl get -o yaml` prints). */
  item?: number;
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  object: Record<string, unknown>;
  /** Finds where a path of `object` sits in the file. */
  positions: Positions;
  /** Set when the resource is not in a file of the repository but rendered by an Application (Helm, kustomize). */
  rendered?: RenderedFrom;
  /** Integers of `object` a double rounds, exactly as written (model/yaml/exact-integers.ts); absent when there are none. */
  exactIntegers?: ExactInteger[];
}

/** Where a rendered resource came from: its Application, the chart or folder, and the template. */
export interface RenderedFrom {
  /** `<application>#<index in its output>`: unique across the repository. */
  id: string;
  app: string;
  /** `chart falco 7.0.2`, `chart at charts/x` or `kustomize apps/media/sonarr`. */
  source: string;
  /** The chart's `# Source:` path (`falco/templates/daemonset.yaml`), when Helm names one. */
  template?: string;
  /** A Helm hook (`helm.sh/hook`): applied by Argo CD around the sync, not kept as a live resource. */
  hook?: boolean;
}

/** A position; `file` when it lies in another file than the resource's (a rendered resource's values file). */
export type FilePosition = LinePos & { file?: string };

export interface Positions {
  at(path: Path, target: 'key' | 'value'): FilePosition;
  /** The document's every place as a table that crosses threads (a worker's parse), where the document is at hand. */
  table?: () => PlaceTable;
}

/** Positions straight from a parsed document. */
export function documentPositions(doc: Document, lineCounter: LineCounter): Positions {
  return { at: (path, target) => locate(doc, lineCounter, path, target), table: () => placeTable(doc, lineCounter) };
}

/**
 * Positions for a resource parsed elsewhere (a worker thread): the file is
 * parsed again only when a finding actually needs a line number.
 */
export function lazyPositions(text: string, docIndex: number, memo: { docs?: Document[]; lineCounter?: LineCounter }): Positions {
  return {
    at(path, target) {
      if (!memo.docs) ({ docs: memo.docs, lineCounter: memo.lineCounter } = readDocuments(text));
      const doc = memo.docs[docIndex];
      return doc ? locate(doc, memo.lineCounter!, path, target) : { line: 1, col: 1 };
    },
  };
}

export interface ParsedFile {
  file: string;
  resources: Resource[];
  findings: Finding[];
  /** The source text, for checks that read YAML embedded in a value (a block scalar). */
  text: string;
  /** Set on the group of resources an Application rendered (they sit in no file of their own). */
  renderedBy?: string;
  /** Documents that hold an object, before a List is split into its items (what Argo CD's findManifests returns). */
  documents?: number;
}

/** Whether a kind is cluster-scoped; the schema layer answers it, as it knows the CRDs' scopes. */
export type ScopeLookup = (apiVersion: string, kind: string) => boolean;

export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

/** Positions of one item of a List: its paths sit under `items.<index>` of the document. */
export function itemPositions(positions: Positions, item: number | undefined): Positions {
  if (item === undefined) return positions;
  // The table is the document's: an item's paths sit under `items.<index>` in it too.
  return { at: (path, target) => positions.at(['items', item, ...path], target), ...(positions.table ? { table: positions.table } : {}) };
}

/** The key that ties a finding to its resource: file, document, and List item. */
export const resourceKey = (x: { file: string; doc?: number; item?: number; rendered?: string | RenderedFrom }) =>
  x.rendered !== undefined ? `rendered:${typeof x.rendered === 'string' ? x.rendered : x.rendered.id}` : `${x.file}#${x.doc ?? ''}#${x.item ?? ''}`;

/** Position of a path inside a resource, for findings. */
export function positionOf(resource: Resource, path: Path, target: 'key' | 'value' = 'value'): FilePosition {
  return resource.positions.at(path, target);
}

/** What a finding says: its check, its message, the fix, and whether it points at the key or the value of its path. */
export interface Said {
  check: string;
  message: string;
  fix?: string;
  target?: 'key' | 'value';
}

/** A finding about `path` inside `resource`. */
export function findingAt(resource: Resource, path: Path, { check, message, fix, target = 'value' }: Said): Finding {
  const { line, col, file } = positionOf(resource, path, target);
  const rendered = resource.rendered;
  return {
    file: file ?? resource.file,
    line,
    col,
    check,
    message: rendered ? `${message} (rendered by ${rendered.app} from ${rendered.template ?? rendered.source})` : message,
    fix,
    doc: resource.doc,
    ...(resource.item === undefined ? {} : { item: resource.item }),
    ...(rendered ? { rendered: rendered.id } : {}),
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses one manifest file. Nesting deeper than the parser's stack can take
 * (thousands of brackets) is one finding at the top of the file, instead of
 * "Maximum call stack size exceeded".
 */
export function parseManifest(file: string, text: string): ParsedFile {
  try {
    return parseManifestUnguarded(file, text);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return {
      file,
      resources: [],
      findings: [
        {
          file,
          line: 1,
          col: 1,
          check: 'nesting-depth',
          message: 'nests deeper than the parser can take; no manifest needs this',
          fix: 'flatten the structure',
        },
      ],
      text,
    };
  }
}

/**
 * The parser's errors on one document, one line each; its own stack overflow is one nesting finding. The parser
 * records an overflow wherever it lands, and on a busy stack that can be at every level it unwinds through (64
 * errors for one document were seen), so only the first is kept.
 */
function syntaxFindings(file: string, errors: readonly YAMLError[], index: number, lineCounter: LineCounter): Finding[] {
  const findings = errors.map((err): Finding => {
    const pos = err.linePos?.[0] ?? lineCounter.linePos(err.pos[0]);
    const message = err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    // The parser catches its own stack overflow and reports it as a syntax error.
    if (STACK_OVERFLOW.test(message))
      return {
        file,
        line: pos.line,
        col: pos.col,
        check: 'nesting-depth',
        message: 'nests deeper than the parser can take; no manifest needs this',
        fix: 'flatten the structure',
        doc: index,
      };
    return { file, line: pos.line, col: pos.col, check: 'yaml-syntax', message, doc: index };
  });
  const firstOverflow = findings.find((f) => f.check === 'nesting-depth');
  return findings.filter((f) => f.check !== 'nesting-depth' || f === firstOverflow);
}

/**
 * A document that is a list, as its items: a List (kubectl get -o yaml prints one) as kubeconform and Argo CD read it,
 * and a typed list (ConfigMapList) as Argo CD's repo-server reads it (unstructured IsList; items null with no spec or
 * status is an empty list, its isNullList). Undefined for an object.
 */
function listItems(apiVersion: string, kind: string, value: Record<string, unknown>): unknown[] | 'no items' | undefined {
  if (apiVersion === 'v1' && kind === 'List') return Array.isArray(value.items) ? value.items : 'no items';
  if (!kind.endsWith('List')) return undefined;
  if (Array.isArray(value.items)) return value.items;
  return 'items' in value && value.items === null && !('spec' in value) && !('status' in value) ? [] : undefined;
}

/**
 * Whether Argo CD's repo-server skips a YAML file whose document fails to decode (getObjsFromYAMLOrJSON): when no
 * object decoded before it, and the file does not hold all of `apiVersion:`, `kind:` and `metadata:`.
 */
function argoSkipsFile(text: string, decodedBefore: number): boolean {
  return decodedBefore === 0 && !(text.includes('apiVersion:') && text.includes('kind:') && text.includes('metadata:'));
}

function shapeFinding(at: { file: string; line: number; col: number; doc: number }, message: string, argoSkips: boolean, text: string): Finding {
  const { file, doc } = at;
  // A checkout without its LFS objects holds the pointer: what Argo CD reads there depends on its credentials.
  if (isLfsPointer(text))
    return {
      ...at,
      check: 'manifest-shape',
      message:
        "the file is a Git LFS pointer, not a manifest: Argo CD's checkout puts the object it names here where the repository's credentials enable LFS (enableLfs), and reads this text where they do not; the gate sees only the pointer, so what it stands for is not judged",
      fix: 'commit the manifest itself, not through LFS, or judge a checkout that holds its LFS objects (git lfs pull)',
    };
  return {
    file,
    line: at.line,
    col: at.col,
    check: 'manifest-shape',
    message: argoSkips
      ? `${message}; Argo CD would skip this file and apply nothing from it, the gate refuses it: a file that looks like nothing is a mistake`
      : message,
    fix: 'every document must be a Kubernetes object with apiVersion, kind and metadata.name',
    doc,
  };
}

/** The loader's finding where Argo CD cannot set its tracking annotation on the object (model/argocd/tracking.ts). */
function trackingFinding(object: Record<string, unknown>, at: () => { file: string; doc: number; line: number; col: number }): Finding | undefined {
  const refusal = trackingRefusal(object);
  if (!refusal) return undefined;
  const name = isPlainObject(object.metadata) && typeof object.metadata.name === 'string' ? object.metadata.name : '';
  return {
    ...at(),
    check: 'argocd-tracking',
    message: `${String(object.kind)} ${name}: Argo CD fails the whole source, applying none of it: ${refusal}`,
    fix: 'quote the annotation value: annotations are strings',
  };
}

/** One document's object, read into resources (a List into its items) or findings: where each part sits, and the large integers kept by path. */
interface DocumentAt {
  file: string;
  text: string;
  index: number;
  positions: Positions;
  integers: ExactInteger[];
}

/** Adds the resources one document holds to `out`, or the findings that say why it holds none. */
function addDocument(out: { resources: Resource[]; findings: Finding[] }, at: DocumentAt, object: unknown): void {
  const { file, text, index, positions, integers } = at;
  const { resources, findings } = out;
  const add = (value: unknown, prefix: Path, item?: number): void => {
    const refuse = (path: Path, message: string): void => {
      // Where Argo CD's directory walk would pass over the file without a word, the refusal says so.
      const skipped =
        item === undefined && !(isPlainObject(value) && typeof value.kind === 'string' && value.kind !== '') && argoSkipsFile(text, resources.length);
      findings.push(shapeFinding({ file, doc: index, ...positions.at([...prefix, ...path], 'key') }, message, skipped, text));
    };
    if (!isPlainObject(value)) {
      refuse(
        [],
        `${item === undefined ? 'document' : `item ${item} of the List`} is a ${Array.isArray(value) ? 'list' : typeof value}, not a Kubernetes object`,
      );
      return;
    }
    const { apiVersion, kind } = value;
    if (typeof apiVersion !== 'string' || apiVersion === '') return refuse(['apiVersion'], 'missing or empty apiVersion');
    if (typeof kind !== 'string' || kind === '') return refuse(['kind'], 'missing or empty kind');
    const list = item === undefined ? listItems(apiVersion, kind, value) : undefined;
    if (list === 'no items') return refuse(['items'], 'a List must have items');
    if (list) {
      list.forEach((entry, i) => add(entry, ['items', i], i));
      return;
    }
    const metadata = isPlainObject(value.metadata) ? value.metadata : {};
    const name = typeof metadata.name === 'string' ? metadata.name : '';
    // Argo CD sets its tracking annotation on every object first; one it cannot set fails the whole source.
    const tracking = trackingFinding(value, () => ({ file, doc: index, ...positions.at([...prefix, 'metadata', 'annotations'], 'key') }));
    if (tracking) return void findings.push(tracking);
    const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : undefined;
    const exact = under(integers, prefix);
    resources.push({
      file,
      doc: index,
      ...(item === undefined ? {} : { item }),
      apiVersion,
      kind,
      name,
      namespace,
      object: value,
      positions: itemPositions(positions, item),
      ...(exact.length ? { exactIntegers: exact } : {}),
    });
  };
  add(object, []);
}

function parseManifestUnguarded(file: string, text: string): ParsedFile {
  return readFast(file, text) ?? fromYamlLibrary(file, text);
}

/**
 * The file as the fast reader reads it (model/yaml/fast-manifest.ts), or undefined where only the `yaml` library may:
 * what the parse pool keeps on the main thread, since a worker costs more than the reading saves. It never throws: what
 * the fast reader did not foresee is left to the `yaml` library too.
 */
export function readFast(file: string, text: string): ParsedFile | undefined {
  // A text go-yaml refuses a part of is read by the `yaml` library, which names it (fromYamlLibrary).
  if (manifestRefusals(file, text).length > 0) return undefined;
  const fast = fastManifest(text);
  return fast ? fromFastDocuments(file, text, fast) : undefined;
}

/** A file js-yaml's events read as the `yaml` library would (model/yaml/fast-manifest.ts): no finding of its own, each document placed by its table. */
function fromFastDocuments(file: string, text: string, docs: readonly FastDocument[]): ParsedFile {
  const out = { resources: [] as Resource[], findings: [] as Finding[] };
  let documents = 0;
  const memo = {};
  docs.forEach(({ value, table }, index) => {
    if (value === null || value === undefined) return;
    documents++;
    const places = placesFrom(table, lazyPositions(text, index, memo));
    const positions: Positions = { at: (path, target) => places.at(path, target), table: () => joined(table) };
    addDocument(out, { file, text, index, positions, integers: [] }, value);
  });
  return { file, ...out, text, documents };
}

/** A file read by the `yaml` library: its syntax errors, YAML 1.1 scalars and repeated keys named, each document placed by its nodes. */
function fromYamlLibrary(file: string, text: string): ParsedFile {
  const { docs: list, lineCounter, read } = readDocuments(text);
  const out = { resources: [] as Resource[], findings: [] as Finding[] };
  const { findings } = out;
  let documents = 0;
  const largeIntegers = mayHoldLargeIntegers(text);
  // Of the text read: a quoted scalar's lines indented (go-quoted.ts) are inside it, as go-yaml reads them.
  const refusals = manifestRefusals(file, text, read);
  list.forEach((doc, index) => {
    if (doc.errors.length > 0) {
      findings.push(...syntaxFindings(file, doc.errors, index, lineCounter));
      return;
    }
    // What go-yaml, and so kubectl, Argo CD and Helm, refuses of a document the `yaml` library reads: the document
    // is not applied, as Argo CD applies none of a source it cannot read.
    const refused = refusals.find((r) => r.doc === index);
    if (refused) {
      const { line, col } = lineCounter.linePos(refused.offset);
      findings.push({
        file,
        line,
        col,
        check: 'yaml-syntax',
        message: goRefusalMessage(refused, 'kubectl, Argo CD and Helm'),
        fix: goRefusalFix(refused),
        doc: index,
      });
      return;
    }
    for (const { line, col, message } of yaml11Ambiguities(doc, lineCounter))
      findings.push({ file, line, col, check: 'yaml-1.1-scalar', message, fix: YAML11_FIX, doc: index });
    const repeats = duplicateKeys(doc, lineCounter);
    if (repeats.length > 0) {
      for (const { key, line, col } of repeats)
        findings.push({ file, line, col, check: 'duplicate-key', message: `duplicate key "${key}": Map keys must be unique`, doc: index });
      return;
    }
    // Blank and comment-only documents are allowed: they apply nothing.
    if (doc.contents === null) return;
    let object: unknown;
    try {
      object = doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      const { line, col } = lineCounter.linePos(doc.range[0]);
      findings.push({ file, line, col, check: 'yaml-syntax', message: (err as Error).message, doc: index });
      return;
    }
    if (object === null || object === undefined) return;
    documents++;
    const positions = documentPositions(doc, lineCounter);
    addDocument(out, { file, text, index, positions, integers: largeIntegers ? exactIntegers(doc) : [] }, object);
  });
  return { file, ...out, text, documents };
}
