/**
 * The custom Falco tuning file as data: the rules file embedded in a
 * ConfigMap (labelled app.kubernetes.io/component: falco-tuning), parsed with
 * positions mapped back to the manifest that carries it.
 */
import { duplicateKeys } from '../yaml/duplicate-keys.ts';
import { embeddedPlacer } from '../yaml/embedded-text.ts';
import { LineCounter, parseAllDocuments } from 'yaml';
import { documentPositions, type Positions } from '../core/manifest.ts';
import type { Repo } from '../repository/repo.ts';
import { perRepo } from '../repository/per-repo.ts';
import { perKey } from '../core/per-object.ts';
import type { LinePos, Path } from '../core/positions.ts';

export const TUNING_COMPONENT_LABEL = 'app.kubernetes.io/component';
export const TUNING_COMPONENT = 'falco-tuning';

export interface TuningItem {
  type: 'rule' | 'macro' | 'list' | 'other';
  name: string;
  index: number;
  raw: Record<string, unknown>;
  override?: Record<string, unknown>;
  condition?: string;
}

export interface TuningFile {
  /** Where it lives: manifest file and the data key holding the rules file. */
  file: string;
  key: string;
  items: TuningItem[];
  /** Position in the manifest of a path inside the embedded rules file. */
  at(path: Path): LinePos;
  errors: { message: string; pos: LinePos }[];
}

/** A rules file as its own text says, positions inside it: the same for every view of an unchanged file. */
interface ParsedRules {
  items: readonly TuningItem[];
  /** Where a path names a place: its item's index is the item's across the file, mapped to its document's own. */
  at: (path: Path) => LinePos;
  errors: readonly { message: string; pos: LinePos }[];
}

/** An item's document, and its index there. */
interface ItemPlace {
  positions: Positions;
  local: number;
}

/** Rules files parsed, by text: every view of the repository reads them again (the mutation runs make hundreds). */
const rulesOf = perKey(200, (text: string): ParsedRules => {
  const lineCounter = new LineCounter();
  // Falco reads every document of a rules file, in order, as one list of items (rule_loader_reader.cpp read: loadall_from_string).
  const parsed = parseAllDocuments(text, { lineCounter, uniqueKeys: false });
  const docs = Array.isArray(parsed) ? parsed : [];
  const docPositions = docs.map((doc) => documentPositions(doc, lineCounter));
  const places: ItemPlace[] = [];
  const at = (path: Path): LinePos => {
    const place = typeof path[0] === 'number' ? places[path[0]] : undefined;
    if (place) return place.positions.at([place.local, ...path.slice(1)], 'key');
    return docPositions[0]?.at(path, 'key') ?? { line: 1, col: 1 };
  };
  const items: TuningItem[] = [];
  const errors: { message: string; pos: LinePos }[] = [];
  for (const [d, doc] of docs.entries()) {
    // Falco stops at the first document it cannot read, and keeps none of the file.
    const docErrors = doc.errors.map((e) => ({ message: e.message.split('\n')[0]!, pos: e.linePos?.[0] ?? { line: 1, col: 1 } }));
    if (!docErrors.length)
      docErrors.push(
        ...duplicateKeys(doc, lineCounter).map((k) => ({ message: `duplicate key "${k.key}": Map keys must be unique`, pos: { line: k.line, col: k.col } })),
      );
    const data: unknown = docErrors.length ? null : doc.toJS({ maxAliasCount: 100 });
    // An empty document, and an empty item, are read as nothing (rule_loader_reader.cpp read: a null document or item is skipped).
    if (!docErrors.length && data !== null && data !== undefined && !Array.isArray(data))
      docErrors.push({ message: 'a Falco rules file is a YAML list of rule, macro and list items', pos: docPositions[d]!.at([], 'key') });
    if (docErrors.length) return { items: [], at, errors: docErrors };
    for (const [local, raw] of (Array.isArray(data) ? data : []).entries()) {
      if (raw === null || raw === undefined) continue;
      places.push({ positions: docPositions[d]!, local });
      items.push(tuningItem(raw as Record<string, unknown>, places.length - 1));
    }
  }
  return { items, at, errors };
});

function tuningItem(item: Record<string, unknown>, index: number): TuningItem {
  const type = (['rule', 'macro', 'list'] as const).find((t) => typeof item[t] === 'string') ?? 'other';
  return {
    type,
    name: type === 'other' ? '' : String(item[type]),
    index,
    raw: item,
    override: typeof item.override === 'object' && item.override !== null ? (item.override as Record<string, unknown>) : undefined,
    condition: typeof item.condition === 'string' ? item.condition : undefined,
  };
}

/** Parses a Falco rules file; `toOuter` maps positions in it to the file it is embedded in. */
export function parseTuning(file: string, key: string, text: string, toOuter: (p: LinePos) => LinePos = (p) => p): TuningFile {
  const { items, at, errors } = rulesOf(text);
  return {
    file,
    key,
    items: [...items],
    at: (path: Path) => toOuter(at(path)),
    errors: errors.map((e) => ({ message: e.message, pos: toOuter(e.pos) })),
  };
}

export const tuningFiles = perRepo((repo: Repo): TuningFile[] => {
  const out: TuningFile[] = [];
  for (const resource of repo.resources) {
    const labels = (resource.object.metadata as { labels?: Record<string, string> } | undefined)?.labels ?? {};
    if (resource.kind !== 'ConfigMap' || labels[TUNING_COMPONENT_LABEL] !== TUNING_COMPONENT) continue;
    const text = repo.parsed.find((p) => p.file === resource.file)?.text ?? '';
    for (const [key, value] of Object.entries((resource.object.data ?? {}) as Record<string, unknown>)) {
      if (typeof value !== 'string' || !/\.ya?ml$/.test(key)) continue;
      out.push(parseTuning(resource.file, key, value, embeddedPlacer(text, resource.positions.at(['data', key], 'value'))));
    }
  }
  return out;
});

/** Lowercased, punctuation and spacing removed: "Terminal shell in container (tuned)" contains "terminalshellincontainer". */
export function normalizeRuleName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}
