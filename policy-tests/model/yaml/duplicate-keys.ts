/**
 * Duplicate mapping keys, found in one pass with a set per mapping. The yaml
 * package's own uniqueKeys option compares every key with every earlier one,
 * which took minutes on a mapping of 100,000 keys.
 */
import { isScalar, type Document, type LineCounter } from 'yaml';
import { eachNode } from './nodes.ts';

export interface DuplicateKey {
  key: string;
  line: number;
  col: number;
}

/** Every repeated scalar key of every mapping in `doc`, at the repeat. */
export function duplicateKeys(doc: Document, lineCounter: LineCounter): DuplicateKey[] {
  const out: DuplicateKey[] = [];
  eachNode(doc, {
    map(map) {
      const seen = new Set<string>();
      for (const pair of map.items) {
        const key = pair.key;
        if (!isScalar(key)) continue;
        // Typed, as the yaml package compares them: the string "1" and the number 1 are different keys.
        const id = `${typeof key.value}:${String(key.value)}`;
        if (!seen.has(id)) {
          seen.add(id);
          continue;
        }
        const { line, col } = lineCounter.linePos(key.range?.[0] ?? 0);
        out.push({ key: String(key.value), line, col });
      }
    },
  });
  return out;
}
