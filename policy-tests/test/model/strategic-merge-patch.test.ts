/** The strategic merge patch as apimachinery applies it (model/appset/strategic-merge-patch.ts), and Go's slices under it. */
import { describe, expect, it } from 'vitest';
import { patchSchemaOf, type PatchType } from '../../model/appset/application-type.ts';
import { decodedSlice, goAppend, goDeleteAt, goStableSort, viewOf } from '../../model/go/slices.ts';
import { PatchError, strategicMergePatch } from '../../model/appset/strategic-merge-patch.ts';

// A schema in the shape of apimachinery's test struct: a list merged by name, one of scalars merged, one replaced.
const item: { struct: string; fields: Record<string, PatchType> } = { struct: 'Item', fields: { name: 'string', value: 'string', labels: { map: 'string' } } };
item.fields.children = { list: item };
item.fields.merging = { list: item };
item.fields.ints = { list: 'string' };
item.fields.raw = 'raw';
const schema = patchSchemaOf(item, {
  'Item.merging': { strategy: 'merge', mergeKey: 'name' },
  'Item.ints': { strategy: 'merge' },
  'Item.raw': { strategy: 'replace' },
});

describe('a strategic merge patch, as apimachinery applies it', () => {
  it('merges a list by its key, replaces one without a strategy, and merges scalars once each', () => {
    const original = { merging: [{ name: 'a', value: '1' }, { name: 'b' }], children: [{ name: 'x' }], ints: [1, 2] };
    const patched = strategicMergePatch(original, { merging: [{ name: 'b', value: '2' }, { name: 'c' }], children: [{ name: 'y' }], ints: [2, 3] }, schema);
    expect(patched).toEqual({ merging: [{ name: 'a', value: '1' }, { name: 'b', value: '2' }, { name: 'c' }], children: [{ name: 'y' }], ints: [1, 2, 3] });
    expect(original.merging).toHaveLength(2);
  });

  it('deletes and replaces with $patch, in a merged list and in a map', () => {
    const original = { merging: [{ name: 'a' }, { name: 'b' }], labels: { k: 'v' } };
    expect(strategicMergePatch(original, { merging: [{ name: 'a', $patch: 'delete' }] }, schema).merging).toEqual([{ name: 'b' }]);
    expect(strategicMergePatch(original, { merging: [{ name: 'c' }, { $patch: 'replace' }] }, schema).merging).toEqual([{ name: 'c' }]);
    expect(strategicMergePatch(original, { labels: { $patch: 'delete' } }, schema).labels).toEqual({});
    expect(strategicMergePatch(original, { labels: { $patch: 'replace', n: 'w' } }, schema).labels).toEqual({ n: 'w' });
  });

  it('orders a list by $setElementOrder, deletes from a list of scalars, and retains the keys it is told to', () => {
    const original = { merging: [{ name: 'a' }, { name: 'b' }], ints: [1, 2, 3], name: 'n', value: 'v' };
    expect(strategicMergePatch(original, { '$setElementOrder/merging': [{ name: 'b' }, { name: 'a' }] }, schema).merging).toEqual([
      { name: 'b' },
      { name: 'a' },
    ]);
    expect(strategicMergePatch(original, { '$deleteFromPrimitiveList/ints': [2] }, schema).ints).toEqual([1, 3]);
    expect(strategicMergePatch(original, { $retainKeys: ['name'], name: 'm' }, schema)).toEqual({ name: 'm' });
  });

  it("refuses in apimachinery's words", () => {
    const refusal = (original: object, patch: object) => {
      try {
        strategicMergePatch(original as never, patch as never, schema);
      } catch (err) {
        return err instanceof PatchError ? err.message : `not a PatchError: ${String(err)}`;
      }
      return 'applied';
    };
    expect(refusal({}, { $patch: 'merge' })).toBe('unknown patch type: merge in map: map[$patch:merge]');
    expect(refusal({ merging: [{ name: 'a' }] }, { merging: [{ value: 'x' }] })).toBe('map: map[value:x] does not contain declared merge key: name');
    expect(refusal({ labels: { a: { b: 1 } } }, { labels: { a: { b: 2 } } })).toBe('merging an object in json but data type is not struct, instead is: map');
    expect(refusal({ unknown: {} }, { unknown: { a: 1 } })).toBe('unable to find api field in struct Item for the json field "unknown"');
    expect(refusal({ $retainKeys: [] }, { $retainKeys: ['name'], value: 'x' })).toBe('invalid patch format of retainKeys');
    expect(refusal({ merging: [{ name: 'a' }] }, { '$setElementOrder/merging': [{ name: 'a' }], merging: [{ name: 'b' }] })).toMatch(
      /doesn't match \$setElementOrder list/,
    );
  });
});

describe("Go's slices, as the patch meets them", () => {
  it('sorts as sort.SliceStable does, past a block of twenty', () => {
    const values = Array.from({ length: 57 }, (_, i) => ({ key: (i * 37) % 11, at: i }));
    const sorted = [...values];
    goStableSort(sorted, (a, b) => a.key < b.key);
    expect(sorted).toEqual([...values].sort((a, b) => a.key - b.key));
  });

  it("shares a decoded list's array: a delete moves the rest down, an append fills its room", () => {
    const live = decodedSlice(['a', 'b', 'c']);
    expect(live.cap).toBe(4);
    const deleted = goDeleteAt(live, 0);
    expect(viewOf(live)).toEqual(['b', 'c', 'c']);
    goAppend(deleted, 'd');
    expect(viewOf(live)).toEqual(['b', 'c', 'd']);
    // Past its room, an append writes elsewhere.
    goAppend(live, 'e', 'f');
    expect(viewOf(live)).toEqual(['b', 'c', 'd']);
  });
});
