/**
 * The warm-start stores: what is read back is what a parse gives (positions
 * included, found again from the text), and a value JSON cannot carry is
 * never stored.
 */
import { describe, expect, it } from 'vitest';
import { itemPositions, lazyPositions } from '../../model/core/manifest.ts';
import { recall, remember, storedPositions } from '../../model/stores/parse-store.ts';
import { loadRepo, parseDataFile, REPO_ROOT } from '../../model/repository/repo.ts';
import { parseSource, readSource } from '../../model/core/source.ts';

describe('the parse store', () => {
  it('gives back every manifest of the repository as a parse gives it, positions found again from the text', async () => {
    const repo = await loadRepo(REPO_ROOT);
    for (const p of repo.parsed.filter((x) => x.renderedBy === undefined)) {
      const fresh = parseSource(p.file, readSource(REPO_ROOT, p.file));
      const stored = { findings: fresh.findings, resources: fresh.resources.map(({ positions: _p, ...rest }) => rest) };
      remember('manifest', `test-store/${p.file}`, p.text, stored);
      const back = recall<typeof stored>('manifest', `test-store/${p.file}`, p.text);
      expect(back, p.file).toEqual(JSON.parse(JSON.stringify(stored)));
      const memo = {};
      fresh.resources.forEach((r, i) => {
        const lazy = itemPositions(lazyPositions(p.text, r.doc, memo), r.item);
        for (const path of [['kind'], ['metadata', 'name'], ['spec']])
          expect(lazy.at(path, 'value'), `${p.file} ${i} ${path.join('.')}`).toEqual(r.positions.at(path, 'value'));
      });
    }
  });

  it('never stores what JSON cannot carry, so an .inf or .nan scalar is parsed again', () => {
    remember('data', 'test-store/inf.yaml', 'x: .inf\n', { data: { x: Infinity }, errors: [] });
    remember('data', 'test-store/hole.yaml', 'x: [1]\n', { data: { x: [undefined] }, errors: [] });
    expect(recall('data', 'test-store/inf.yaml', 'x: .inf\n')).toBeUndefined();
    expect(recall('data', 'test-store/hole.yaml', 'x: [1]\n')).toBeUndefined();
    remember('data', 'test-store/ok.yaml', 'x: 1\n', { data: { x: 1 }, errors: [] });
    expect(recall('data', 'test-store/ok.yaml', 'x: 1\n')).toEqual({ data: { x: 1 }, errors: [] });
    // Another text under the same name is another key.
    expect(recall('data', 'test-store/ok.yaml', 'x: 2\n')).toBeUndefined();
  });

  it('stores a data file as a parse gives it, and finds its positions again from the text', () => {
    const text = 'a:\n  b: [1, 2]\n  c: "x"\n';
    const file = `test-store-${process.pid}-${Math.random()}/values.yaml`;
    const fresh = parseDataFile(file, text);
    expect(recall('data', file, text)).toEqual({ data: fresh.data, errors: fresh.errors });
    expect(lazyPositions(text, 0, {}).at(['a', 'c'], 'value')).toEqual(fresh.positions.at(['a', 'c'], 'value'));
  });

  it('keeps each place a finding asked for: the next lookup in the unchanged text parses nothing', () => {
    const text = 'a: 1\n---\nkind: X\nspec:\n  b: [1, 2]\n';
    const file = `test-store-${process.pid}-${Math.random()}/two.yaml`;
    const first: { docs?: unknown[] } = {};
    const place = storedPositions(file, text, 1, first as never).at(['spec', 'b'], 'value');
    expect(place).toEqual(lazyPositions(text, 1, {}).at(['spec', 'b'], 'value'));
    expect(first.docs).toBeDefined();
    // A new run (a new memo): the place comes from the store, and the text is not parsed.
    const second: { docs?: unknown[] } = {};
    expect(storedPositions(file, text, 1, second as never).at(['spec', 'b'], 'value')).toEqual(place);
    expect(second.docs).toBeUndefined();
    // Another text, or another path, is looked for again.
    const changed: { docs?: unknown[] } = {};
    storedPositions(file, text.replace('[1, 2]', '[1, 2, 3]'), 1, changed as never).at(['spec', 'b'], 'value');
    expect(changed.docs).toBeDefined();
  });
});
