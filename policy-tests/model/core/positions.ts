/**
 * Maps a JSON path inside a parsed YAML document back to `line:col`, so every
 * finding points at the exact key or value a human has to edit.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';

export type PathSegment = string | number;
export type Path = readonly PathSegment[];

export interface LinePos {
  line: number;
  col: number;
}

/** Parses an ajv `instancePath` (`/spec/template/0`) into path segments. */
export function parseInstancePath(instancePath: string): PathSegment[] {
  if (!instancePath) return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

interface Located {
  key?: Node;
  value?: Node;
}

function step(doc: Document, node: unknown, segment: PathSegment): Located | undefined {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = isScalar(pair.key) ? pair.key.value : pair.key;
      if (String(key) === String(segment)) return { key: pair.key as Node, value: (pair.value ?? undefined) as Node | undefined };
    }
    // A key a YAML merge (`<<: *base`) brings in, as Argo CD's and Helm's parsers expand it: found at the merge.
    for (const pair of node.items) {
      // With merges on, the parser gives the key a symbol for its value; its source text stays `<<`.
      if (!isPair(pair) || !isScalar(pair.key) || (pair.key.value !== '<<' && pair.key.source !== '<<')) continue;
      const sources = isSeq(pair.value) ? pair.value.items : [pair.value];
      for (const source of sources) {
        const merged = step(doc, isAlias(source) ? source.resolve(doc) : source, segment);
        if (merged) return { key: pair.key as Node, value: merged.value };
      }
    }
    return undefined;
  }
  if (isSeq(node) && typeof segment === 'number') {
    const item = node.items[segment];
    return item ? { value: item as Node } : undefined;
  }
  return undefined;
}

/**
 * Position of `path` in `doc`. `target: 'key'` points at a mapping key (used
 * for unknown fields). When the path does not exist (a missing required
 * field), the deepest existing ancestor is used.
 */
export function locate(doc: Document, lineCounter: LineCounter, path: Path, target: 'key' | 'value' = 'value'): LinePos {
  let current: Node | undefined = doc.contents ?? undefined;
  let best: Node | undefined = current;
  for (let i = 0; i < path.length; i++) {
    const found = step(doc, current, path[i]!);
    if (!found) break;
    const isLast = i === path.length - 1;
    // A key is where a human looks for a block (`resources:`), a scalar value for a setting (`image: x`).
    const preferKey = !isLast || target === 'key' || !isScalar(found.value);
    best = (preferKey ? found.key : found.value) ?? found.value ?? found.key ?? best;
    current = found.value;
    if (!current) break;
  }
  const offset = best?.range?.[0] ?? doc.range?.[0] ?? 0;
  return lineCounter.linePos(offset);
}
