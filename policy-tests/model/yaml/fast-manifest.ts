/**
 * Manifests read fast. The `yaml` library, which the loader needs for its exact errors, comments and positions, was
 * most of a cold gate's time (2.2 s of a single-threaded read of the benchmark's 1,000 files; js-yaml's event parser
 * reads them in 0.2 s). So a file is first read from js-yaml's events (its source offsets), to the objects the
 * `yaml` library's `toJS` builds (core-schema.ts) and to the place table its `locate` answers from (place-table.ts),
 * and it answers only where the two cannot differ:
 *
 * - no anchor, alias, tag, directive or merge key (`<<`), and no collection as a key;
 * - no repeated key in a mapping (the loader names it), no plain scalar YAML 1.1 reads otherwise (yaml11.ts names it),
 *   no integer a double rounds (exact-integers.ts keeps its digits), no carriage return, no empty sequence item, no
 *   `...` line (the two count documents differently there);
 * - nothing js-yaml refuses, nested no deeper than its limit of 100.
 *
 * Anything else returns undefined, and the caller reads the file with the `yaml` library as before, which reports
 * it in its own words. fast-manifest.test.ts holds the two equal (objects, documents and every place) on every YAML
 * file of the repository and on the corner cases; docs/design.md gives its agreement with the YAML test suite.
 */
import { createRequire } from 'node:module';
import type { Event, ScalarEvent } from 'js-yaml';
import type { LinePos } from '../core/positions.ts';
import { keyName, plainValue, setKey } from './core-schema.ts';
import { mayHoldLargeIntegers } from './exact-integers.ts';
import { childPath, tableBuilder, type Places } from './place-table.ts';
import { isYaml11Ambiguous } from './yaml11.ts';

type JsYaml = typeof import('js-yaml');

/** Loaded on the first file read: a run that reads none (a kept verdict) never loads it. */
let jsYaml: JsYaml | undefined;
const load = (): JsYaml => (jsYaml ??= createRequire(import.meta.url)('js-yaml') as JsYaml);

/** One document of a file: its value as `toJS` makes it (null for an empty one), and its places. */
export interface FastDocument {
  value: unknown;
  table: Places;
}

/** A `...` line: the `yaml` library counts a document there where js-yaml counts none (the YAML test suite's QT73, HWV9). */
const DOCUMENT_END = /^\.\.\.(?:[ \t]|$)/m;

/** Thrown inside the walk where only the `yaml` library may answer. */
class Unanswered extends Error {}

const unanswered = (): never => {
  throw new Unanswered();
};

/** The file's documents, or undefined where only the `yaml` library may read it. */
export function fastManifest(text: string): FastDocument[] | undefined {
  // Cheap refusals first: a merge key, an integer past a double, a line break the two count differently.
  if (text.includes('<<') || text.includes('\r') || DOCUMENT_END.test(text) || mayHoldLargeIntegers(text)) return undefined;
  const js = load();
  const { parseEvents } = js;
  let events: Event[];
  try {
    events = parseEvents(text, {});
  } catch {
    return undefined;
  }
  try {
    return new Reader(text, events, js).documents();
  } catch {
    // Unanswered, or anything the walk did not foresee in a text a pull request wrote: the `yaml` library reads it.
    return undefined;
  }
}

/** Line starts, for `{ line, col }` as the `yaml` library's LineCounter gives them. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

class Reader {
  private i = 0;
  private readonly starts: number[];
  private table = tableBuilder({ unique: true });
  private readonly text: string;
  private readonly events: Event[];
  private readonly decode: JsYaml['getScalarValue'];
  /** js-yaml's names for its events and scalar styles. */
  private readonly E: JsYaml['EVENT_ID'];
  private readonly S: JsYaml['SCALAR_STYLE'];

  constructor(text: string, events: Event[], js: JsYaml) {
    this.text = text;
    this.events = events;
    this.decode = js.getScalarValue;
    this.E = js.EVENT_ID;
    this.S = js.SCALAR_STYLE;
    this.starts = lineStarts(text);
  }

  documents(): FastDocument[] {
    const out: FastDocument[] = [];
    while (this.i < this.events.length) {
      const event = this.events[this.i++]!;
      if (event.type !== this.E.DOCUMENT || event.directives.length > 0) unanswered();
      this.table = tableBuilder({ unique: true });
      const start = this.startOf(this.events[this.i]!);
      const value = this.node('');
      if (this.events[this.i++]?.type !== this.E.POP) unanswered();
      out.push({ value, table: this.table.done(this.pos(start ?? 0), true) });
    }
    return out;
  }

  /** LineCounter.linePos: the 1-based line and column of an offset. */
  private pos(offset: number): LinePos {
    const starts = this.starts;
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (starts[mid]! < offset) low = mid + 1;
      else high = mid;
    }
    if (starts[low] === offset) return { line: low + 1, col: 1 };
    return { line: low, col: offset - starts[low - 1]! + 1 };
  }

  /** Where the `yaml` library's node for this event starts, or undefined for an empty scalar (placed by its caller). */
  private startOf(event: Event): number | undefined {
    if (event.type === this.E.MAPPING || event.type === this.E.SEQUENCE) return event.start;
    if (event.type !== this.E.SCALAR) return unanswered();
    if (event.valueStart < 0) return event.style === this.S.PLAIN ? undefined : unanswered();
    if (event.style === this.S.SINGLE_QUOTED || event.style === this.S.DOUBLE_QUOTED) return event.valueStart - 1; // at its quote
    if (event.style === this.S.LITERAL_BLOCK || event.style === this.S.FOLDED_BLOCK) return this.blockHeader(event.valueStart);
    return event.valueStart;
  }

  /**
   * A block scalar's `|` or `>`, where the `yaml` library places it: on the line before its text (js-yaml's
   * offset), after the line's indentation, its `- ` item marks and any `key:`; found from the line's start, so
   * a key that holds `|` or `>` itself is left to the `yaml` library.
   */
  private blockHeader(textStart: number): number {
    const lineEnd = textStart - 1;
    let at = this.text.lastIndexOf('\n', lineEnd - 1) + 1;
    while (this.text[at] === ' ' || (this.text[at] === '-' && this.text[at + 1] === ' ')) at += this.text[at] === '-' ? 2 : 1;
    const indicator = this.text.slice(at, lineEnd).search(/[|>]/);
    if (indicator < 0) return unanswered();
    const before = this.text.slice(at, at + indicator);
    // Nothing but a plain key and its colon may come before the indicator.
    if (before !== '' && !/^[A-Za-z0-9_./-][A-Za-z0-9_./ -]* *: +$/.test(before)) return unanswered();
    return at + indicator;
  }

  /** The node at the cursor, read to its value, its places recorded under `path`. */
  private node(path: string): unknown {
    const event = this.events[this.i++]!;
    if (event.type === this.E.SCALAR) {
      if (event.anchorStart >= 0 || event.tagStart >= 0) unanswered();
      return this.scalar(event);
    }
    if (event.type !== this.E.MAPPING && event.type !== this.E.SEQUENCE) return unanswered();
    if (event.anchorStart >= 0 || event.tagStart >= 0) unanswered();
    return event.type === this.E.MAPPING ? this.mapping(path) : this.sequence(path);
  }

  private scalar(event: ScalarEvent): unknown {
    if (event.valueStart < 0) return null;
    const source = event.fast ? this.text.slice(event.valueStart, event.valueEnd) : this.decode(this.text, event);
    if (event.style !== this.S.PLAIN) return source;
    // YAML 1.1 reads it otherwise: the `yaml` library's reading names it, and sets the value Helm and the API server read.
    if (isYaml11Ambiguous(source)) unanswered();
    return plainValue(source);
  }

  private mapping(path: string): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    while (this.events[this.i]?.type !== this.E.POP) {
      const keyEvent = this.events[this.i]!;
      if (keyEvent.type !== this.E.SCALAR || keyEvent.valueStart < 0) return unanswered();
      const keyStart = this.startOf(keyEvent)!;
      const keyValue = this.node(path);
      if (keyValue === null || (keyEvent.style === this.S.PLAIN && keyValue === '<<')) unanswered();
      const name = keyName(keyValue)!;
      // A repeated key: the loader names it from the `yaml` library's reading.
      if (Object.hasOwn(map, name)) unanswered();
      const valueEvent = this.events[this.i];
      if (!valueEvent || valueEvent.type === this.E.POP) return unanswered();
      const childAt = childPath(path, String(keyValue));
      const keyEnd = keyEvent.valueEnd + (keyEvent.style === this.S.PLAIN ? 0 : 1);
      const valueStart = this.startOf(valueEvent) ?? this.afterIndicator(keyEnd, ':');
      const asKey = this.pos(keyStart);
      const scalarValue = valueEvent.type === this.E.SCALAR;
      this.table.record(childAt, asKey, scalarValue ? this.pos(valueStart) : asKey);
      setKey(map, name, this.node(childAt));
    }
    this.i++;
    return map;
  }

  private sequence(path: string): unknown[] {
    const items: unknown[] = [];
    while (this.events[this.i]?.type !== this.E.POP) {
      const itemEvent = this.events[this.i]!;
      // An empty item (`-` and nothing): the `yaml` library places it after the dash, which the events do not give.
      const start = this.startOf(itemEvent) ?? unanswered();
      const childAt = childPath(path, items.length);
      const at = this.pos(start);
      this.table.record(childAt, at, at);
      items.push(this.node(childAt));
    }
    this.i++;
    return items;
  }

  /** Where the `yaml` library places an empty value: past the `:` after its key and the spaces after it. */
  private afterIndicator(from: number, indicator: string): number {
    let at = from;
    while (this.text[at] === ' ') at++;
    if (this.text[at] !== indicator) return unanswered();
    at++;
    while (this.text[at] === ' ' || this.text[at] === '\t') at++;
    return at;
  }
}
