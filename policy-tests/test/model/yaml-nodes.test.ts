/** The document walk every manifest gets (model/yaml/nodes.ts) meets the nodes the yaml package's own visit meets, in its order. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isMap, isScalar, parseAllDocuments, visit, type Document } from 'yaml';
import { eachNode } from '../../model/yaml/nodes.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const TRICKY = [
  'a: 1\nb: [x, y: z, {k: v}]\nc: &anchor {d: yes}\ne: *anchor\nf:\n  <<: *anchor\n  g: 0755\n',
  '? complex key\n: value\n? [a, b]\n: {c: d}\n',
  '!!set {a, b, c}\n',
  '!!omap [a: 1, b: 2]\n',
  '- - - - deep: [1, [2, [3, {four: 4}]]]\n',
  '---\nfirst: doc\n---\n- second\n- doc\n---\n',
  'plain\n',
  '',
];

/** The maps and scalars a walk meets, by kind and place. */
function metBy(walk: (doc: Document, seen: string[]) => void, text: string): string[] {
  const seen: string[] = [];
  for (const doc of parseAllDocuments(text, { uniqueKeys: false, merge: true }) as Document[]) walk(doc, seen);
  return seen;
}
const byVisit = (doc: Document, seen: string[]) =>
  visit(doc, {
    Map: (_, m) => void (isMap(m) && seen.push(`map@${m.range?.[0]}`)),
    Scalar: (_, s) => void (isScalar(s) && seen.push(`scalar@${s.range?.[0]}:${String(s.source ?? s.value)}`)),
  });
const byWalk = (doc: Document, seen: string[]) =>
  eachNode(doc, { map: (m) => seen.push(`map@${m.range?.[0]}`), scalar: (s) => seen.push(`scalar@${s.range?.[0]}:${String(s.source ?? s.value)}`) });

describe('the document walk', () => {
  it.each(TRICKY)('meets what visit meets, in its order: %j', (text) => {
    expect(metBy(byWalk, text)).toEqual(metBy(byVisit, text));
  });

  it('meets what visit meets in every manifest and data file of the real repository', async () => {
    const repo = await loadRepo(REPO_ROOT);
    const files = [...repo.manifestFiles, ...repo.dataFiles.keys()].filter((f) => /\.ya?ml$/.test(f));
    expect(files.length).toBeGreaterThan(200);
    for (const file of files) {
      const text = readFileSync(join(REPO_ROOT, file), 'utf8');
      expect(metBy(byWalk, text), file).toEqual(metBy(byVisit, text));
    }
  });
});
