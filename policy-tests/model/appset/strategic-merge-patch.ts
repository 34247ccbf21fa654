/**
 * A strategic merge patch applied as apimachinery's `StrategicMergePatch` applies it (pkg/util/strategicpatch
 * patch.go, `mergeMap` and what it calls, with the apply path's options: parallel lists merged, unmatched nulls
 * ignored), over a schema that answers what Go's struct tags answer (`LookupPatchMeta`). Argo CD applies an
 * ApplicationSet's `templatePatch` so (template-patch.ts); no JavaScript library applies one. Ported line by line,
 * errors in apimachinery's words, because what a directive does where the schema and the document disagree (a
 * `$patch: delete` in a list that does not merge, a map under a RawExtension) is what a reader would not guess.
 * Held to apimachinery's own cases: `npm run conformance -- --strategic-merge-patch`.
 */
import { isMap, type Obj } from '../core/dig.ts';
import { decodedSlice, goAppend, goDeleteAt, goStableSort, viewOf, type GoSlice } from '../go/slices.ts';
import { goPrint as goSprint } from '../go/fmt.ts';

const MARKER = '$patch';
const DELETE = 'delete';
const REPLACE = 'replace';
const MERGE = 'merge';
const RETAIN_KEYS_STRATEGY = 'retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const RETAIN_KEYS = '$retainKeys';
const SET_ELEMENT_ORDER = '$setElementOrder';

/** What `LookupPatchMetadataForStruct` and `...ForSlice` answer for a key: the field's schema and its struct tags. */
export interface PatchMeta {
  schema: PatchSchema;
  strategies: string[];
  mergeKey: string;
}

/** `LookupPatchMeta`: each lookup throws a `PatchError` in apimachinery's words where Go's would fail. */
export interface PatchSchema {
  forStruct(key: string): PatchMeta;
  forSlice(key: string): PatchMeta;
  name(): string;
}

/** A patch the apply refuses, in apimachinery's words. */
export class PatchError extends Error {}

type List = unknown[];

/** Go's reflect type name of a decoded JSON value, for its type comparisons and messages. */
function goTypeOf(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (isMap(v)) return 'map[string]interface {}';
  return typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'bool' : 'float64';
}

const badArgType = (expected: string, actual: unknown) => new PatchError(`expected a ${expected}, but received a ${goTypeOf(actual)}`);
const noMergeKey = (m: Obj, k: string) => new PatchError(`map: ${goSprint(m)} does not contain declared merge key: ${k}`);
const sprintS = (v: unknown): string => (typeof v === 'string' ? v : `%!s(${goTypeOf(v)}=${goSprint(v)})`);

/** `StrategicMergePatch`: the patched document. Neither argument is changed. */
export function strategicMergePatch(original: Obj, patch: Obj, schema: PatchSchema): Obj {
  return mergeMap(structuredClone(original), structuredClone(patch), schema);
}

function directiveInMap(directive: unknown, patch: Obj): Obj {
  if (directive === REPLACE) {
    delete patch[MARKER];
    return patch;
  }
  if (directive === DELETE) return {};
  throw new PatchError(`unknown patch type: ${sprintS(directive)} in map: ${goSprint(patch)}`);
}

/** `removeDirectives`: the value without what a directive marks, and whether it stays at all. */
function removeDirectives(value: unknown): [unknown, boolean] {
  if (isMap(value)) {
    if (Object.hasOwn(value, MARKER)) return [undefined, false];
    for (const k of Object.keys(value)) {
      const [v, keep] = removeDirectives(value[k]);
      if (keep) value[k] = v;
      else delete value[k];
    }
    return [value, true];
  }
  if (Array.isArray(value)) return [value.flatMap((e) => (([v, keep]) => (keep ? [v] : []))(removeDirectives(e))), true];
  return [value, true];
}

function discardNulls(value: unknown): void {
  if (Array.isArray(value)) value.forEach(discardNulls);
  else if (isMap(value))
    for (const [k, v] of Object.entries(value)) {
      if (v === null) delete value[k];
      else discardNulls(v);
    }
}

function extractKey(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    if (prefix === DELETE_FROM_PRIMITIVE_LIST) throw new PatchError('invalid patch format of primitive list');
    throw new PatchError('invalid patch format of setElementOrder list');
  }
  return key.slice(slash + 1);
}

function retainKeysStrategy(strategies: string[]): string {
  if (strategies.length === 0) return '';
  if (strategies.length === 1) return strategies[0] === RETAIN_KEYS_STRATEGY ? '' : strategies[0]!;
  if (strategies.length === 2 && strategies[0] === RETAIN_KEYS_STRATEGY) return strategies[1]!;
  if (strategies.length === 2 && strategies[1] === RETAIN_KEYS_STRATEGY) return strategies[0]!;
  throw new PatchError(`unexpected patch strategy: ${goSprint(strategies)}`);
}

function applyRetainKeys(original: Obj, patch: Obj): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const retain = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(retain)) throw new PatchError('invalid patch format of retainKeys');
  const kept = new Set(retain);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!kept.has(k)) throw new PatchError('invalid patch format of retainKeys');
  }
  for (const k of Object.keys(original)) if (!kept.has(k)) delete original[k];
}

function mergeMap(originalIn: Obj | null | undefined, patch: Obj, schema: PatchSchema): Obj {
  if (Object.hasOwn(patch, MARKER)) return directiveInMap(patch[MARKER], patch);
  const original = originalIn ?? {};
  applyRetainKeys(original, patch);
  mergeSetElementOrders(original, patch, schema);
  for (const [written, patchV] of Object.entries(patch)) {
    const isDeleteList = written.startsWith(DELETE_FROM_PRIMITIVE_LIST);
    const k = isDeleteList ? extractKey(written, DELETE_FROM_PRIMITIVE_LIST) : written;
    if (patchV === null) {
      delete original[k];
      continue;
    }
    if (!Object.hasOwn(original, k) || goTypeOf(original[k]) !== goTypeOf(patchV)) {
      if (!isDeleteList) takePatchValue(original, k, patchV);
      continue;
    }
    if (isMap(patchV)) {
      const meta = schema.forStruct(k);
      const strategy = retainKeysStrategy(meta.strategies);
      original[k] = strategy === REPLACE ? patchV : mergeMap(original[k] as Obj, patchV, meta.schema);
    } else if (Array.isArray(patchV)) {
      const meta = schema.forSlice(k);
      const strategy = retainKeysStrategy(meta.strategies);
      original[k] = strategy === MERGE || isDeleteList ? mergeSlice(decodedSlice(original[k] as List), patchV, meta, isDeleteList) : patchV;
    } else takePatchValue(original, k, patchV);
  }
  return original;
}

function takePatchValue(original: Obj, k: string, patchV: unknown): void {
  discardNulls(patchV);
  const [v, keep] = removeDirectives(patchV);
  if (keep) original[k] = v;
  else delete original[k];
}

/** `sliceElementType`: the Go type every element of the lists shares. */
function elementType(...lists: List[]): string {
  let prev: string | undefined;
  for (const list of lists)
    for (const v of list) {
      const t = goTypeOf(v);
      if (prev === undefined) {
        prev = t;
        if (t === '[]interface {}') throw new PatchError('lists of lists are not supported');
      } else if (prev !== t) throw new PatchError(`list element types are not identical: ${lists.map(goSprint).join(' ')}`);
    }
  if (prev === undefined) throw new PatchError('no elements in any of the given slices');
  return prev;
}

const isMapKind = (t: string) => t === 'map[string]interface {}';

/** How a list's items are told apart: by their merge key's value where they are maps, else by themselves. */
interface ListKind {
  mergeKey: string;
  kind: string;
}

/** `mergeSlice` on the caller's list `live`, which sees the writes Go's makes into it (model/go/slices.ts). */
function mergeSlice(live: GoSlice, patchIn: List, { schema, mergeKey }: Pick<PatchMeta, 'schema' | 'mergeKey'>, isDeleteList: boolean): List {
  const originalIn = viewOf(live);
  if (originalIn.length === 0 && patchIn.length === 0) return originalIn;
  const kind = elementType(originalIn, patchIn);
  let original = live;
  let patch = patchIn;
  let merged: List;
  if (!isMapKind(kind)) {
    if (isDeleteList) return originalIn.filter((v) => !patchIn.includes(v));
    merged = deduplicateScalars(goAppend(live, ...patch));
  } else {
    if (!mergeKey) throw new PatchError(`cannot merge lists without merge key for ${schema.name()}`);
    [original, patch] = withSpecialElements(live, patch, mergeKey);
    merged = withoutSpecialElements(original, patch, mergeKey, schema);
  }
  const [patchItems, serverOnly] = mergeKey ? partitionMaps(merged, patch, mergeKey) : partitionScalars(merged, patch);
  return normalizeElementOrder([patchItems, serverOnly], [patch, viewOf(original)], { mergeKey, kind });
}

/** `deduplicateScalars`, in place as Go's: a repeat is overwritten by the last element. */
function deduplicateScalars(both: GoSlice): List {
  const s = both.backing;
  let length = both.len - 1;
  for (let i = 0; i < length; i++)
    for (let j = i + 1; j <= length; j++)
      if (s[i] === s[j]) {
        s[j] = s[length];
        length--;
        j--;
      }
  return s.slice(0, length + 1);
}

function withSpecialElements(live: GoSlice, patch: List, mergeKey: string): [GoSlice, List] {
  const plain: List = [];
  let replace = false;
  let out = live;
  for (const v of patch as Obj[]) {
    if (!Object.hasOwn(v, MARKER)) {
      plain.push(v);
      continue;
    }
    const type = v[MARKER];
    if (type === DELETE) {
      if (!Object.hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
      // deleteMatchingEntries: each match deleted in place, from the first.
      for (let at = findByKey(viewOf(out), mergeKey, v[mergeKey]); at >= 0; at = findByKey(viewOf(out), mergeKey, v[mergeKey])) out = goDeleteAt(out, at);
    } else if (type === REPLACE) replace = true;
    else if (type === MERGE) throw new PatchError('merging lists cannot yet be specified in the patch');
    else throw new PatchError(`unknown patch type: ${sprintS(type)} in map: ${goSprint(v)}`);
  }
  return replace ? [decodedSlice(plain), []] : [out, plain];
}

/** `findMapInSliceBasedOnKeyValue`. */
function findByKey(list: List, key: string, value: unknown): number {
  for (let k = 0; k < list.length; k++) {
    const e = list[k];
    if (!isMap(e)) throw new PatchError(`value for key ${k} is not a map`);
    if (Object.hasOwn(e, key) && e[key] === value) return k;
  }
  return -1;
}

function withoutSpecialElements(original: GoSlice, patch: List, mergeKey: string, schema: PatchSchema): List {
  let out = original;
  for (const v of patch as Obj[]) {
    if (!Object.hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
    const at = findByKey(viewOf(out), mergeKey, v[mergeKey]);
    if (at >= 0) out.backing[at] = mergeMap(out.backing[at] as Obj, v, schema);
    else out = goAppend(out, v);
  }
  return viewOf(out);
}

function partitionScalars(list: List, by: List): [List, List] {
  const inPatch = new Set(by);
  return [list.filter((v) => inPatch.has(v)), list.filter((v) => !inPatch.has(v))];
}

function partitionMaps(list: List, by: List, mergeKey: string): [List, List] {
  const patch: List = [];
  const serverOnly: List = [];
  for (const v of list) {
    if (!isMap(v)) throw badArgType('map[string]interface {}', v);
    if (!Object.hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
    (findByKey(by, mergeKey, v[mergeKey]) >= 0 ? patch : serverOnly).push(v);
  }
  return [patch, serverOnly];
}

/** `index`: where an item stands in a list, by its merge key's value for maps (a missing key reads as nil). */
function indexIn(list: List, item: unknown, { mergeKey, kind }: ListKind): number {
  const val = (e: unknown) => (isMapKind(kind) ? (isMap(e) ? (e[mergeKey] ?? null) : null) : e);
  const wanted = val(item);
  return list.findIndex((e) => val(e) === wanted);
}

function normalizeSliceOrder(toSortIn: List, order: List, by: ListKind): List {
  let toSort = toSortIn;
  let toDelete: List = [];
  if (isMapKind(by.kind)) {
    for (const l of [toSort, order])
      for (const item of l) {
        if (!isMap(item)) throw badArgType('map[string]interface {}', item);
        if (!Object.hasOwn(item, by.mergeKey)) throw noMergeKey(item, by.mergeKey);
      }
    toDelete = toSort.filter((v) => (v as Obj)[MARKER] === DELETE);
    toSort = toSort.filter((v) => (v as Obj)[MARKER] !== DELETE);
  }
  goStableSort(toSort, (a, b) => {
    const ia = indexIn(order, a, by);
    const ib = indexIn(order, b, by);
    return ia >= 0 && ib >= 0 ? ia < ib : true;
  });
  return [...toSort, ...toDelete];
}

/** `normalizeElementOrder`: the patch's items in the patch's order, the live list's own in its order, then the two merged. */
function normalizeElementOrder([patchIn, serverIn]: [List, List], [patchOrder, serverOrder]: [List, List], by: ListKind): List {
  const patch = normalizeSliceOrder(patchIn, patchOrder, by);
  const serverOnly = normalizeSliceOrder(serverIn, serverOrder, by);
  // mergeSortedSlice: each server-only item placed among the patch's by the live list's order, both orders kept.
  const out: List = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < patch.length) {
    if (i >= serverOnly.length) out.push(patch[j++]);
    else if (j >= patch.length) out.push(serverOnly[i++]);
    else {
      const li = indexIn(serverOrder, serverOnly[i], by);
      const ri = indexIn(serverOrder, patch[j], by);
      if (li >= 0 && ri >= 0 && li < ri) out.push(serverOnly[i++]);
      else out.push(patch[j++]);
    }
  }
  return out;
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (!mergeKey) return left === right;
  if (!isMap(left)) throw badArgType('map[string]interface {}', left);
  if (!isMap(right)) throw badArgType('map[string]interface {}', right);
  if (!Object.hasOwn(left, mergeKey)) throw noMergeKey(left, mergeKey);
  if (!Object.hasOwn(right, mergeKey)) throw noMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}

/** `validatePatchWithSetOrderList`: the patch's list is in the order's order, and no item is beyond it. */
function validateSetOrder(patchList: unknown, setOrder: List, mergeKey: string): void {
  if (patchList !== undefined && !Array.isArray(patchList)) throw new PatchError('invalid patch format of setElementOrder list');
  const list = (patchList ?? []) as List;
  if (setOrder.length === 0 || list.length === 0) return;
  const nonDelete = mergeKey
    ? list.filter((v) => {
        if (!isMap(v)) throw badArgType('map[string]interface {}', v);
        return v[MARKER] !== DELETE;
      })
    : list;
  let p = 0;
  let s = 0;
  while (p < nonDelete.length && s < setOrder.length) {
    if (isMap(nonDelete[p]) && Object.hasOwn(nonDelete[p] as Obj, MARKER)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(nonDelete[p], setOrder[s], mergeKey)) p++;
    s++;
  }
  if (p < nonDelete.length && s >= setOrder.length)
    throw new PatchError(`The order in patch list:\n${goSprint(list)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goSprint(setOrder)}\n`);
}

/** `mergePatchIntoOriginal`: each `$setElementOrder/<list>` merged with its list and the order it sets. */
function mergeSetElementOrders(original: Obj, patch: Obj, schema: PatchSchema): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const setOrder = patch[key];
    delete patch[key];
    if (!Array.isArray(setOrder)) throw badArgType('[]interface {}', setOrder);
    const listKey = extractKey(key, SET_ELEMENT_ORDER);
    const foundOriginal = Object.hasOwn(original, listKey);
    const foundPatch = Object.hasOwn(patch, listKey);
    const patchList = patch[listKey];
    if (foundOriginal && !Array.isArray(original[listKey])) throw badArgType('[]interface {}', original[listKey]);
    // The live list as this function holds it: the merge below writes into it, and it is sorted by what it then holds.
    const live = decodedSlice(foundOriginal ? (original[listKey] as List) : []);
    if (foundPatch && !Array.isArray(patchList)) throw badArgType('[]interface {}', patchList);
    const meta = schema.forSlice(listKey);
    const strategy = retainKeysStrategy(meta.strategies);
    validateSetOrder(patchList, setOrder, meta.mergeKey);
    let merged: List;
    if (foundOriginal && !foundPatch) merged = viewOf(live);
    else if (!foundOriginal && foundPatch) merged = removeDirectives(patchList)[0] as List;
    else if (foundOriginal && foundPatch) merged = strategy === MERGE ? mergeSlice(live, patchList as List, meta, false) : (patchList as List);
    else continue;
    const [patchItems, serverOnly] = meta.mergeKey ? partitionMaps(merged, setOrder, meta.mergeKey) : partitionScalars(merged, setOrder);
    const kind = elementType(viewOf(live), (patchList as List | undefined) ?? []);
    original[listKey] = normalizeElementOrder([patchItems, serverOnly], [setOrder, viewOf(live)], { mergeKey: meta.mergeKey, kind });
    delete patch[listKey];
  }
}
