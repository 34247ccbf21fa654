/**
 * What every check's view of one gate run derives alike is derived once for all the views (model/core/per-object.ts
 * perObjects): a kustomization's walk, the files a directory source reads, the files an Application applies. Each
 * memo is keyed by every object its answer reads, so a view, or a run, that holds other objects gets its own answer.
 */
import { describe, expect, it } from 'vitest';
import { filesOfApp, filesOfSource, type AppSource, type ArgoApp } from '../../model/argocd/argocd.ts';
import { kustomizeInputs, type KustomizeView } from '../../model/argocd/kustomize.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { perObjects } from '../../model/core/per-object.ts';
import { parseDataFile, type Repo } from '../../model/repository/repo.ts';

const THIS = 'https://github.com/alice/lab.git';

describe('perObjects', () => {
  it('derives once for each combination of objects, and again when any one of them is another', () => {
    const memo = perObjects<number>();
    const [a, b, c] = [{}, {}, {}];
    let made = 0;
    const derive = () => ++made;
    expect([memo([a, b], derive), memo([a, b], derive)]).toEqual([1, 1]);
    expect([memo([a, c], derive), memo([c, b], derive), memo([b, a], derive)]).toEqual([2, 3, 4]);
    expect(memo([a, b], derive)).toBe(1);
  });
});

describe("a kustomization's walk", () => {
  const files = new Set(['app/kustomization.yaml', 'app/a.yaml', 'app/b.yaml']);
  const kustomization = (resources: string[]) => parseDataFile('app/kustomization.yaml', `resources: [${resources.join(', ')}]\n`);
  const view = (data = kustomization(['a.yaml'])): KustomizeView => ({ files, dataFiles: new Map([['app/kustomization.yaml', data]]) });
  const walked = (v: KustomizeView) => [...kustomizeInputs(v, 'app').files].sort();

  it('is made once for every view of a file tree that holds the same parsed kustomizations', () => {
    const data = kustomization(['a.yaml']);
    expect(kustomizeInputs(view(data), 'app')).toBe(kustomizeInputs(view(data), 'app'));
    expect(walked(view(data))).toEqual(['app/a.yaml', 'app/kustomization.yaml']);
  });

  it('is made again for a view that holds another kustomization at the same path, or another file tree', () => {
    expect(walked(view(kustomization(['a.yaml'])))).toEqual(['app/a.yaml', 'app/kustomization.yaml']);
    expect(walked(view(kustomization(['b.yaml'])))).toEqual(['app/b.yaml', 'app/kustomization.yaml']);
    const data = kustomization(['a.yaml']);
    const without = { files: new Set(['app/a.yaml']), dataFiles: new Map([['app/kustomization.yaml', data]]) };
    expect(walked(without)).toEqual([]);
  });
});

describe('the files a source reads and an Application applies', () => {
  const source: AppSource = { at: ['spec', 'source'], repoURL: THIS, targetRevision: 'HEAD', path: 'apps/web' };
  const app: ArgoApp = { resource: {} as Resource, name: 'web', project: 'default', sources: [source] };
  const built: AppSource = { ...source, path: 'apps/built' };
  const builder: ArgoApp = { ...app, name: 'built', sources: [built] };
  const paths = ['apps/web/a.yaml', 'apps/web/b.yaml', 'apps/built/kustomization.yaml', 'apps/built/a.yaml'];
  const kustomization = parseDataFile('apps/built/kustomization.yaml', 'resources: [a.yaml]\n');
  // One run's objects; each case below changes one of them, as the next run (or another view) would.
  const parts = { files: new Set(paths), checkout: paths, parsed: [] as Repo['parsed'], facts: { repoURL: THIS } };
  const repoOf = (o: Partial<typeof parts> = {}): Repo => {
    const { files, checkout, parsed, facts } = { ...parts, ...o };
    return {
      root: '/nonexistent',
      facts,
      files,
      dirs: new Set(),
      parsed,
      resources: [],
      dataFiles: new Map([['apps/built/kustomization.yaml', kustomization]]),
      checkout: { paths: checkout, from: 'git' },
    } as unknown as Repo;
  };

  it('are read once for every view of a run: its checkout, file tree, parsed files and facts', () => {
    expect(filesOfSource(repoOf(), source)).toBe(filesOfSource(repoOf(), source));
    expect(filesOfApp(repoOf(), app)).toBe(filesOfApp(repoOf(), app));
    expect(filesOfApp(repoOf(), app)).toEqual(['apps/web/a.yaml', 'apps/web/b.yaml']);
    expect(filesOfApp(repoOf(), builder)).toEqual(['apps/built/a.yaml']);
  });

  it('are read afresh where any of those is another', () => {
    // The next run's checkout, a file added.
    const added = [...paths, 'apps/web/c.yaml'];
    expect(filesOfSource(repoOf({ checkout: added }), source)).toEqual(['apps/web/a.yaml', 'apps/web/b.yaml', 'apps/web/c.yaml']);
    expect(filesOfApp(repoOf({ checkout: added }), app)).toEqual(['apps/web/a.yaml', 'apps/web/b.yaml', 'apps/web/c.yaml']);
    // The same checkout parsed again, a file now marked to be skipped.
    const marked = [{ file: 'apps/web/b.yaml', text: '# +argocd:skip-file-rendering\n' }] as unknown as Repo['parsed'];
    expect(filesOfSource(repoOf({ parsed: marked }), source)).toEqual(['apps/web/a.yaml']);
    expect(filesOfApp(repoOf({ parsed: marked }), app)).toEqual(['apps/web/a.yaml']);
    // A file tree without the kustomization's resource.
    expect(filesOfApp(repoOf({ files: new Set(paths.filter((p) => p !== 'apps/built/a.yaml')) }), builder)).toEqual([]);
    // Facts naming another repository: the source is not this one's, and applies none of its files.
    expect(filesOfApp(repoOf({ facts: { repoURL: 'https://github.com/bob/lab.git' } }), app)).toEqual([]);
  });
});
