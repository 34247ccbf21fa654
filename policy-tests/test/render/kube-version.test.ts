/**
 * The Kubernetes version a source renders for, as Argo CD's repo-server hands it to Helm and kustomize
 * (reposerver/repository `parseKubeVersion` at v3.5.1: apimachinery's ParseGeneric, then String), and the source's
 * own version and API versions before the cluster's (GetKubeVersionOrDefault, GetAPIVersionsOrDefault).
 */
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { schemaLayer } from '../../gate/pipeline.ts';
import { parseKubeVersion } from '../../model/argocd/repo-server.ts';
import { loadRepo } from '../../model/repository/repo.ts';
import { renderRepo } from '../../render/render.ts';
import { fixtureRepo, repoApp } from '../../../test-support/render-fixtures.ts';

describe("the repo-server's parse of a Kubernetes version", () => {
  // Inputs of the kinds apimachinery's version_test.go (TestGenericVersions, TestBadGenericVersions) holds, and what String prints.
  it.each([
    ['1.0', '1.0'],
    ['1.2.3', '1.2.3'],
    ['v1.30.1-gke.1', '1.30.1'],
    ['1.2.3-alpha.4', '1.2.3'],
    ['1.2.3+build', '1.2.3'],
    [' 1.2 ', '1.2'],
    ['1.02', '1.2'],
    ['1.2.3.4', '1.2.3.4'],
    ['0.1', '0.1'],
  ])('%s is %s', (input, printed) => {
    expect(parseKubeVersion(input)).toEqual({ version: printed });
  });
  it.each([
    ['1', 'illegal version string "1"'],
    ['01.2', 'illegal zero-prefixed version component "01" in "01.2"'],
    ['latest', 'could not parse "latest" as version'],
    ['', 'could not parse "" as version'],
    ['vv1.2', 'could not parse "vv1.2" as version'],
  ])('%s fails the source: %s', (input, why) => {
    expect(parseKubeVersion(input)).toEqual({ error: `could not parse kubernetes version ${input}: ${why}` });
  });
});

describe("a Helm source's own Kubernetes version", () => {
  it('is the one the chart sees, as Argo CD prints it; one it cannot parse fails the source in its words', async () => {
    const repo = fixtureRepo();
    try {
      repo.write('apps/web/chart/Chart.yaml', 'apiVersion: v2\nname: web\nversion: 1.0.0\n');
      repo.write(
        'apps/web/chart/templates/cm.yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n  batch: {{ .Capabilities.APIVersions.Has "example.com/v1" | quote }}\n',
      );
      const render = async (helm: string) => {
        repo.write('apps/web/application.yaml', repoApp('web', `    path: apps/web/chart\n    helm:\n${helm}`));
        const layer = await schemaLayer();
        return (await renderRepo(await loadRepo(repo.root), { builtinApiVersions: layer.builtinApiVersions(), env: process.env })).renders[0]!;
      };
      const own = await render('      kubeVersion: v1.30.1-gke.1\n      apiVersions: [example.com/v1]');
      expect(own.status, own.message).toBe('rendered');
      expect(own.resources[0]?.object).toMatchObject({ data: { kube: 'v1.30.1', batch: 'true' } });
      expect(await render('      kubeVersion: "1"')).toMatchObject({
        status: 'failed',
        message: expect.stringContaining('could not parse kubernetes version 1: illegal version string "1"'),
      });
    } finally {
      rmSync(repo.root, { recursive: true, force: true });
    }
  });
});
