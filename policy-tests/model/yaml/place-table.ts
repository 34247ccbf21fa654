/**
 * Where every node of a parsed document sits, as a table that crosses threads. A document parsed in a worker cannot
 * come back to the main thread, and a finding there needs a line: without the table, the file is parsed a second
 * time (a whole tree of warnings once cost the gate a second on 10,000 resources). The table holds, for each path the
 * document spells out (no merge key, no alias), the place `locate` gives for a key and for a value; a missing field
 * is placed at its deepest ancestor, as `locate` places it, and only a key a merge brings in is asked of the fallback,
 * which parses. The same places, before they are joined to cross a thread, answer a file the fast reader read
 * (fast-manifest.ts).
 */
import { isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';
import type { LinePos, Path } from '../core/positions.ts';

/** Paths joined by ENTRY (each path's segments joined by SEP: `k<key>` a mapping key, `#<index>` an item); 4 numbers a path. */
export interface PlaceTable {
  keys: string;
  places: Int32Array;
  /** Where the document's contents start: what `locate` gives for the empty path, and for a path none of whose first segment is there. */
  root: LinePos;
  /**
   * No merge key and no collection as a key: every path `locate` can find is in the table, so a path it does not
   * hold is missing from the document, and `locate` gives its deepest ancestor that is.
   */
  complete: boolean;
}

const SEP = '\u0001';
const ENTRY = '\u0002';

/** The path one segment below `prefix`: `k<key>` for a mapping key, `#<index>` for a sequence item. */
export function childPath(prefix: string, segment: string | number): string {
  return `${prefix}${prefix === '' ? '' : SEP}${typeof segment === 'number' ? `#${segment}` : `k${segment}`}`;
}

/** A table before it is joined to cross a thread: each path's row (4 numbers a row), as placesFrom reads it too. */
export interface Places {
  paths: string[];
  places: ArrayLike<number>;
  root: LinePos;
  complete: boolean;
}

/** A table filled path by path, in document order; the first of two equal paths is the one `locate` finds. */
export function tableBuilder(options: { unique?: boolean } = {}) {
  const paths: string[] = [];
  const places: number[] = [];
  // A reader that refuses a repeated key (fast-manifest.ts) meets each path once, and keeps no set of them.
  const seen = options.unique ? undefined : new Set<string>();
  return {
    record(path: string, asKey: LinePos, asValue: LinePos): void {
      if (seen?.has(path)) return;
      seen?.add(path);
      paths.push(path);
      places.push(asKey.line, asKey.col, asValue.line, asValue.col);
    },
    done: (root: LinePos, complete: boolean): Places => ({ paths, places, root, complete }),
  };
}

/** The table joined, to cross a thread. */
export function joined({ paths, places, root, complete }: Places): PlaceTable {
  return { keys: paths.join(ENTRY), places: Int32Array.from(places), root, complete };
}

interface Locator {
  at(path: Path, target: 'key' | 'value'): LinePos;
}

/** Every path of `doc` with where `locate` puts its key and its value (positions.ts: a scalar value at the value, else the key). */
export function placeTable(doc: Document, lineCounter: LineCounter): PlaceTable {
  const table = tableBuilder();
  let complete = true;
  const pos = (node: Node | undefined): LinePos => lineCounter.linePos(node?.range?.[0] ?? doc.range?.[0] ?? 0);
  const record = (path: string, key: Node | undefined, value: Node | undefined): void =>
    table.record(path, pos(key ?? value), pos((isScalar(value) ? value : key) ?? value ?? key));
  const visit = (node: unknown, prefix: string): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair) || !isScalar(pair.key)) {
          complete = false;
          continue;
        }
        // A merge key brings in another map's keys: `locate` finds those at the merge, the fallback does too.
        if (pair.key.value === '<<' || pair.key.source === '<<') {
          complete = false;
          continue;
        }
        const path = childPath(prefix, String(pair.key.value));
        const value = (pair.value ?? undefined) as Node | undefined;
        record(path, pair.key as Node, value);
        visit(value, path);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => {
        const path = childPath(prefix, i);
        record(path, undefined, item as Node);
        visit(item, path);
      });
    }
  };
  visit(doc.contents, '');
  return joined(table.done(pos((doc.contents ?? undefined) as Node | undefined), complete));
}

/**
 * Positions read from a table as `locate` gives them (positions.ts): the path's own place, or where the table is
 * complete, its deepest ancestor's key (the document's start when none is there). The fallback is asked only what an
 * incomplete table does not hold (a key a merge brings in).
 */
export function placesFrom(table: PlaceTable | Places, fallback: Locator): Locator {
  let index: Map<string, number> | undefined;
  const place = (at: number): LinePos => ({ line: table.places[at]!, col: table.places[at + 1]! });
  return {
    at(path, target) {
      index ??= new Map(('paths' in table ? table.paths : table.keys.split(ENTRY)).map((k, i) => [k, i]));
      let prefix = '';
      let found: number | undefined;
      for (const segment of path) {
        // `locate` matches a number against a sequence's index, or against a mapping key by its text ("8080":).
        let next = childPath(prefix, segment);
        let i = index.get(next);
        if (i === undefined && typeof segment === 'number') i = index.get((next = childPath(prefix, String(segment))));
        if (i === undefined) {
          if (!table.complete) return fallback.at(path, target);
          // Missing from the document: `locate` stops at the deepest ancestor there, at its key.
          return found === undefined ? table.root : place(4 * found);
        }
        prefix = next;
        found = i;
      }
      if (found === undefined) return table.root;
      return place(target === 'key' ? 4 * found : 4 * found + 2);
    },
  };
}
