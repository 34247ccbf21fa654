/**
 * A top-level generator's own template merged over the ApplicationSet's as Argo CD's mergeGeneratorTemplate merges
 * it (dario.cat/mergo Merge, without override): what the generator's leaves empty, the ApplicationSet's fills.
 */
import { describe, expect, it } from 'vitest';
import { generatorTemplate, mergoMerge } from '../../model/appset/generator-template.ts';

const SET = {
  metadata: { name: '{{name}}', labels: { team: 'media', tier: 'app' }, finalizers: ['resources-finalizer.argocd.argoproj.io'] },
  spec: {
    project: 'media',
    source: { repoURL: 'https://git.example/lab.git', targetRevision: 'main', path: 'apps/{{name}}', helm: { valuesObject: { a: 1, b: 2 } } },
    destination: { server: 'https://kubernetes.default.svc', namespace: 'media' },
    syncPolicy: { automated: { prune: true, selfHeal: true }, syncOptions: ['CreateNamespace=true'] },
  },
};

describe("a generator's own template", () => {
  it("is the ApplicationSet's where the generator has none", () => {
    expect(generatorTemplate({ elements: [] }, SET)).toBe(SET);
    expect(generatorTemplate({ elements: [], template: {} }, SET)).toBe(SET);
  });

  it('keeps what it sets, takes the rest, and merges objects field by field, maps key by key', () => {
    const own = {
      metadata: { labels: { tier: 'db', owner: '' } },
      spec: { source: { path: 'databases/{{name}}' }, destination: { namespace: 'data' } },
    };
    expect(generatorTemplate({ elements: [], template: own }, SET)).toEqual({
      metadata: { name: '{{name}}', labels: { tier: 'db', owner: '', team: 'media' }, finalizers: ['resources-finalizer.argocd.argoproj.io'] },
      spec: {
        project: 'media',
        source: { repoURL: 'https://git.example/lab.git', targetRevision: 'main', path: 'databases/{{name}}', helm: { valuesObject: { a: 1, b: 2 } } },
        destination: { server: 'https://kubernetes.default.svc', namespace: 'data' },
        syncPolicy: { automated: { prune: true, selfHeal: true }, syncOptions: ['CreateNamespace=true'] },
      },
    });
  });

  it("cannot turn a setting off: false, 0 and an empty list are empty to mergo, and take the ApplicationSet's", () => {
    const merged = mergoMerge(
      { spec: { syncPolicy: { automated: { prune: false }, syncOptions: [] }, revisionHistoryLimit: 0 } },
      { spec: { ...SET.spec, revisionHistoryLimit: 3 } },
    ) as typeof SET & {
      spec: { revisionHistoryLimit: number };
    };
    expect(merged.spec.syncPolicy).toEqual({ automated: { prune: true, selfHeal: true }, syncOptions: ['CreateNamespace=true'] });
    expect(merged.spec.revisionHistoryLimit).toBe(3);
  });

  it("keeps a list it sets whole, and a helm valuesObject whole (a RawExtension's bytes), never merged into the ApplicationSet's", () => {
    const merged = mergoMerge({ metadata: { finalizers: ['other'] }, spec: { source: { helm: { valuesObject: { b: 9 } } } } }, SET) as typeof SET;
    expect(merged.metadata.finalizers).toEqual(['other']);
    expect(merged.spec.source.helm.valuesObject).toEqual({ b: 9 });
  });

  it("leaves the ApplicationSet's template as it was", () => {
    const before = structuredClone(SET);
    generatorTemplate({ template: { spec: { project: 'platform' } } }, SET);
    expect(SET).toEqual(before);
  });
});
