/**
 * The place table a worker sends with its parse, and the fast reader's places (model/yaml/fast-manifest.ts): every
 * place it gives is the one `locate` gives on the `yaml` library's document, for a key and for a value, a missing
 * field and a number naming a mapping key among them; only a key a merge brings in goes to the fallback, which parses.
 */
import { describe, expect, it } from 'vitest';
import { itemPositions, lazyPositions, parseManifest, type Positions } from '../../model/core/manifest.ts';
import { placesFrom } from '../../model/yaml/place-table.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import type { Path } from '../../model/core/positions.ts';

/** Every path of a JSON value, and beside each object's a child that is not there. */
function pathsOf(value: unknown, at: Path = []): Path[] {
  const out: Path[] = [at];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pathsOf(v, [...at, i])));
  else if (value && typeof value === 'object') {
    out.push([...at, 'no-such-field']);
    for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...at, k]));
  }
  return out;
}

/**
 * Each place the table gives, and each the resource's own positions give, against `locate` on the `yaml` library's
 * document (lazyPositions parses with it), and how many lookups the fallback took.
 */
function compare(file: string, text: string): { lookups: number; fallbacks: number } {
  const parsed = parseManifest(file, text);
  let lookups = 0;
  let fallbacks = 0;
  const memo = {};
  for (const r of parsed.resources) {
    const lazy = lazyPositions(text, r.doc, memo);
    const counted: Positions = { at: (path, target) => (fallbacks++, lazy.at(path, target)) };
    const fromTable = itemPositions(placesFrom(r.positions.table!(), counted), r.item);
    const expected = itemPositions(lazyPositions(text, r.doc, {}), r.item);
    for (const path of pathsOf(r.object))
      for (const target of ['key', 'value'] as const) {
        lookups++;
        const where = `${file} doc ${r.doc} ${path.join('.')} ${target}`;
        const place = expected.at(path, target);
        expect(fromTable.at(path, target), where).toEqual(place);
        expect(r.positions.at(path, target), where).toEqual(place);
      }
  }
  return { lookups, fallbacks };
}

describe('the place table', () => {
  it("gives every place of the repository's manifests as the yaml library's document does, the fallback only for merged keys", async () => {
    const repo = await loadRepo(REPO_ROOT);
    let lookups = 0;
    let fallbacks = 0;
    for (const p of repo.parsed.filter((x) => x.renderedBy === undefined && x.resources.length > 0)) {
      const counts = compare(p.file, p.text);
      lookups += counts.lookups;
      fallbacks += counts.fallbacks;
    }
    expect(lookups).toBeGreaterThan(10_000);
    // A missing field is placed at its ancestor from the table: the fallback takes only keys a merge brings in.
    expect(fallbacks / lookups).toBeLessThan(0.01);
  });

  it('leaves merged keys, aliases, numbers naming mapping keys and List items to the same answers', () => {
    const text = `base: &base
  a: 1
  b: [x, y]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: merged
  labels:
    <<: {team: home}
    own: yes-really
data:
  "8080": port
  list: |
    block
---
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: first}
    data: {k: v}
  - apiVersion: v1
    kind: Secret
    metadata:
      name: second
    stringData:
      x: "1"
`;
    const { lookups, fallbacks } = compare('t.yaml', text);
    expect(lookups).toBeGreaterThan(40);
    expect(fallbacks).toBeGreaterThan(0);
  });
});
