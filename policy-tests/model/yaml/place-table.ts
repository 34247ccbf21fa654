/**
 * Where every node of a parsed document sits, as a table that crosses threads. A document parsed in a worker cannot
 * come back to the main thread, and a finding there needs a line: without the table, the file is parsed a second
 * time (a whole tree of warnings once cost the gate a second on 10,000 resources). The table holds, for each path the
 * document spells out (no merge key, no alias), the place `locate` gives for a key and for a value; a path it does not
 * hold (a merged key, a missing field) is asked of the fallback, which parses.
 */
import { isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';
import type { LinePos, Path } from '../core/positions.ts';

/** Paths joined by ENTRY (each path's segments joined by SEP: `k<key>` a mapping key, `#<index>` an item); 4 numbers a path. */
export interface PlaceTable {
  keys: string;
  places: Int32Array;
}

const SEP = '\u0001';
const ENTRY = '\u0002';

interface Locator {
  at(path: Path, target: 'key' | 'value'): LinePos;
}

/** Every path of `doc` with where `locate` puts its key and its value (positions.ts: a scalar value at the value, else the key). */
export function placeTable(doc: Document, lineCounter: LineCounter): PlaceTable {
  const keys: string[] = [];
  const places: number[] = [];
  const seen = new Set<string>();
  const pos = (node: Node | undefined): LinePos => lineCounter.linePos(node?.range?.[0] ?? doc.range?.[0] ?? 0);
  const record = (path: string, key: Node | undefined, value: Node | undefined): void => {
    if (seen.has(path)) return; // the first of two equal keys is the one `locate` finds
    seen.add(path);
    const asKey = pos(key ?? value);
    const asValue = pos((isScalar(value) ? value : key) ?? value ?? key);
    keys.push(path);
    places.push(asKey.line, asKey.col, asValue.line, asValue.col);
  };
  const visit = (node: unknown, prefix: string): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair) || !isScalar(pair.key)) continue;
        // A merge key brings in another map's keys: `locate` finds those at the merge, the fallback does too.
        if (pair.key.value === '<<' || pair.key.source === '<<') continue;
        const path = `${prefix}${prefix === '' ? '' : SEP}k${String(pair.key.value)}`;
        const value = (pair.value ?? undefined) as Node | undefined;
        record(path, pair.key as Node, value);
        visit(value, path);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => {
        const path = `${prefix}${prefix === '' ? '' : SEP}#${i}`;
        record(path, undefined, item as Node);
        visit(item, path);
      });
    }
  };
  visit(doc.contents, '');
  return { keys: keys.join(ENTRY), places: Int32Array.from(places) };
}

/** Positions read from a table, the fallback asked for what the table does not hold (and for the document itself). */
export function placesFrom(table: PlaceTable, fallback: Locator): Locator {
  let index: Map<string, number> | undefined;
  return {
    at(path, target) {
      // A number is a sequence index here; a number naming a mapping key ("8080":) is left to the fallback.
      const key = path.map((s) => (typeof s === 'number' ? `#${s}` : `k${s}`)).join(SEP);
      if (key === '') return fallback.at(path, target);
      index ??= new Map(table.keys.split(ENTRY).map((k, i) => [k, i]));
      const i = index.get(key);
      if (i === undefined) return fallback.at(path, target);
      const at = target === 'key' ? 4 * i : 4 * i + 2;
      return { line: table.places[at]!, col: table.places[at + 1]! };
    },
  };
}
