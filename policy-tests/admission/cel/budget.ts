/**
 * The API server's runtime cost limits on CEL, counted as the gate can count
 * them with @bufbuild/cel, which has no cost tracker of its own.
 *
 * Every list and map handed to a rule is wrapped so that each element a
 * comprehension or a library function walks costs one unit. cel-go charges
 * at least one unit for each such step (the accumulator's read), so a rule
 * that walks more elements here than the API server's per-call limit
 * (1,000,000, k8s.io/apiserver/pkg/apis/cel/config.go) is over that limit
 * there too: the count never refuses what the API server admits, and a
 * nested comprehension over a long list stops after a million steps instead
 * of running for minutes. The count is deterministic: the same object costs
 * the same on any machine.
 */
import type { CelInput } from '@bufbuild/cel';
import { unescapeProperty } from './escaping.ts';

/** cel-go's per-call limit for a CRD rule or an admission expression. */
export const PER_CALL_LIMIT = 1_000_000;
/** The API server's budget for all the rules of one object. */
export const RUNTIME_BUDGET = 10_000_000;

/** Thrown from inside an evaluation when it walks past the per-call limit. */
export class CostLimitExceeded extends Error {
  constructor() {
    super('operation cancelled: actual cost limit exceeded');
  }
}

/**
 * Thrown where the API server goes on and this evaluator will not: a value too large to build here in the time a
 * gate has (a string of hundreds of millions of characters the API server's Go builds in a second). The evaluation
 * is then not judged, never passed or failed.
 */
export class BeyondEvaluator extends Error {}

let spent = 0;
let limit = Number.POSITIVE_INFINITY;
let beyond: string | undefined;

/** Runs one evaluation under the per-call limit; returns what it gave, what it cost, and why it was not judged if so. */
export function metered<T>(run: () => T): { value: T; cost: number; beyond?: string } {
  const [outerSpent, outerLimit, outerBeyond] = [spent, limit, beyond];
  spent = 0;
  limit = PER_CALL_LIMIT;
  beyond = undefined;
  try {
    const value = run();
    return { value, cost: spent, ...(beyond ? { beyond } : {}) };
  } finally {
    [spent, limit, beyond] = [outerSpent, outerLimit, outerBeyond];
  }
}

/** Stops the evaluation as not judged, why: the engine may turn the throw into an error value, so it is also noted. */
export function beyondEvaluator(why: string): never {
  beyond ??= why;
  throw new BeyondEvaluator(why);
}

function spend(): void {
  if (++spent > limit) throw new CostLimitExceeded();
}

/** Charges a library function's walk of `units` elements (a list the engine built is not metered as it is walked). */
export function charge(units: number): void {
  spent += units;
  if (spent > limit) throw new CostLimitExceeded();
}

const LIST = Symbol.for('@bufbuild/cel/list');
const MAP = Symbol.for('@bufbuild/cel/map');

interface CelMapLike {
  readonly size: number;
  get(key: unknown): CelInput | undefined;
  has(key: unknown): boolean;
  keys(): IterableIterator<unknown>;
  entries(): IterableIterator<[unknown, CelInput]>;
  values(): IterableIterator<CelInput>;
  forEach(callback: (value: CelInput, key: unknown, map: unknown) => void, thisArg?: unknown): void;
}

/**
 * A CEL list whose walk is metered: the first `length` elements of `items`, which it may share with a longer list
 * made by appending to it (see concatLists).
 */
class MeteredList {
  readonly [LIST] = {};
  readonly #items: CelInput[];
  readonly #length: number;
  /** The schema's x-kubernetes-list-type (set or map, with its keys), which decides equality and concatenation (list-types.ts). */
  readonly listType: ListType | undefined;
  /** The schema's type of the elements, which an empty list's sum() needs (cel-go sums in the element type). */
  readonly elements: ElementType | undefined;
  constructor(items: CelInput[], length: number, listType?: ListType, elements?: ElementType) {
    this.#items = items;
    this.#length = length;
    this.listType = listType;
    this.elements = elements;
  }
  get size(): number {
    return this.#length;
  }
  get(index: number): CelInput | undefined {
    return index >= 0 && index < this.#length ? this.#items[index] : undefined;
  }
  *values(): IterableIterator<CelInput> {
    for (let i = 0; i < this.#length; i++) {
      spend();
      yield this.#items[i]!;
    }
  }
  [Symbol.iterator](): IterableIterator<CelInput> {
    return this.values();
  }
  /** Appends in place when nothing was appended to this list before (so no other list sees the change). */
  append(more: Iterable<CelInput>): MeteredList {
    const owned = this.#items.length === this.#length;
    const items = owned ? this.#items : this.#items.slice(0, this.#length);
    for (const v of more) items.push(v);
    return new MeteredList(items, items.length, this.listType, this.elements);
  }
}

/**
 * List concatenation that stays linear. The engine's own builds a chain of
 * concatenated views, one per step of a map() or filter(), so walking the
 * result of a comprehension over n elements takes n² steps: seconds for a
 * few thousand. Appending to a list that owns the end of its array is O(1)
 * per element; every view keeps its own length, so no list ever changes.
 */
export function concatLists(a: unknown, b: unknown): CelInput {
  const left = a instanceof MeteredList ? a : new MeteredList([...(a as Iterable<CelInput>)], (a as { size: number }).size);
  return left.append(b as Iterable<CelInput>) as unknown as CelInput;
}

/** A CEL map whose walk (a comprehension over its keys) is metered. */
class MeteredMap {
  readonly [MAP] = {};
  readonly #inner: CelMapLike;
  constructor(inner: CelMapLike) {
    this.#inner = inner;
  }
  get size(): number {
    return this.#inner.size;
  }
  // A rule reaches a property whose name is not a CEL identifier by its escaped spelling (escaping.ts).
  get(key: unknown): CelInput | undefined {
    const found = this.#inner.get(key);
    if (found !== undefined || typeof key !== 'string') return found;
    const name = unescapeProperty(key);
    return name === undefined ? undefined : this.#inner.get(name);
  }
  has(key: unknown): boolean {
    return this.get(key) !== undefined;
  }
  *keys(): IterableIterator<unknown> {
    for (const k of this.#inner.keys()) {
      spend();
      yield k;
    }
  }
  *entries(): IterableIterator<[unknown, CelInput]> {
    for (const e of this.#inner.entries()) {
      spend();
      yield e;
    }
  }
  *values(): IterableIterator<CelInput> {
    for (const v of this.#inner.values()) {
      spend();
      yield v;
    }
  }
  forEach(callback: (value: CelInput, key: unknown, map: unknown) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) callback.call(thisArg, v, k, this);
  }
  [Symbol.iterator](): IterableIterator<[unknown, CelInput]> {
    return this.entries();
  }
}

/** A list of these (already converted) elements, of the schema's list type and element type. */
export const meteredList = (items: CelInput[], listType?: ListType, elements?: ElementType): CelInput =>
  new MeteredList(items, items.length, listType, elements) as unknown as CelInput;

/** An element type, as the schema's items declare it. */
export interface ElementType {
  type?: string;
  format?: string;
}

/** The element type a list read from a schema carries. */
export const elementTypeOf = (v: unknown): ElementType | undefined => (v instanceof MeteredList ? v.elements : undefined);

/** A set or map list's type, as the schema declares it; an atomic list has none. */
export interface ListType {
  type: 'set' | 'map';
  keys: readonly string[];
}

/** The list type a value carries, when it is a list read from a schema that declares one. */
export const listTypeOf = (v: unknown): ListType | undefined => (v instanceof MeteredList ? v.listType : undefined);
/** Wraps the engine's map of these (already converted) entries. */
export const meteredMap = (inner: unknown): CelInput => new MeteredMap(inner as CelMapLike) as unknown as CelInput;
