/** argocd-cm's kustomize.buildOptions as Argo CD splits it, and the part the gate builds with (model/argocd/kustomize.ts). */
import { describe, expect, it } from 'vitest';
import { kustomizeBuildOptions } from '../../model/argocd/kustomize.ts';

describe('kustomizeBuildOptions', () => {
  it('passes the load restrictor on in every spelling kustomize takes, and Helm inflation, and keeps the rest apart', () => {
    expect(kustomizeBuildOptions('--load-restrictor LoadRestrictionsNone')).toEqual({ args: ['--load-restrictor', 'LoadRestrictionsNone'], other: [] });
    expect(kustomizeBuildOptions('  --enable-helm\t--load_restrictor=LoadRestrictionsRootOnly --enable-alpha-plugins ')).toEqual({
      args: ['--enable-helm', '--load-restrictor', 'LoadRestrictionsRootOnly'],
      other: ['--enable-alpha-plugins'],
    });
  });

  it('keeps a restrictor it does not know, or one with no value, out of the build', () => {
    expect(kustomizeBuildOptions('--load-restrictor none')).toEqual({ args: [], other: ['--load-restrictor', 'none'] });
    expect(kustomizeBuildOptions('--load-restrictor')).toEqual({ args: [], other: ['--load-restrictor'] });
    expect(kustomizeBuildOptions(undefined)).toEqual({ args: [], other: [] });
  });
});
