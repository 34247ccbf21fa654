/**
 * An Application a render makes (an app of apps written as a chart, as the argocd-apps chart writes them) is synced by
 * Argo CD like any other: the gate renders its sources too, level by level, and what it cannot reach is counted as not
 * rendered, never passed over. With the real Helm and kustomize.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allFindings, runGate } from '../../gate/gate.ts';
import { toolEnv } from '../../../test-support/chart-repo.ts';
import { fixtureRepo, repoApp, type FixtureRepo } from '../../../test-support/render-fixtures.ts';

let env: NodeJS.ProcessEnv;
let cache: string;

beforeAll(async () => {
  cache = mkdtempSync(join(tmpdir(), 'made-apps-cache-'));
  env = await toolEnv({ HOMELAB_CACHE_DIR: cache });
});

afterAll(() => rmSync(cache, { recursive: true, force: true }));

/** A local chart at `apps/<folder>` whose one template is `template`. */
function chartFolder(repo: FixtureRepo, folder: string, template: string): void {
  repo.write(`apps/${folder}/Chart.yaml`, `apiVersion: v2\nname: ${folder}\nversion: 1.0.0\n`);
  repo.write(`apps/${folder}/templates/made.yaml`, template);
}

/** An Application of this repository at `path`, as a chart's template writes it. */
const madeApp = (name: string, path: string) => repoApp(name, `    path: ${path}`);

/** A repository whose app `parent` renders a chart that makes the Application `web`, syncing `path`. */
function parentMakingWeb(path: string): FixtureRepo {
  const repo = fixtureRepo();
  repo.write('apps/parent/application.yaml', madeApp('parent', 'apps/parent'));
  chartFolder(repo, 'parent', madeApp('web', path));
  return repo;
}

describe('an Application a render makes', () => {
  it("has its sources rendered too: what its kustomization builds is what the gate judges, not only the folder's files", async () => {
    const repo = parentMakingWeb('apps/web');
    repo.write(
      'apps/web/kustomization.yaml',
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamePrefix: built-\nresources:\n  - cm.yaml\n',
    );
    repo.write('apps/web/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: "1"\n');
    const result = await runGate({ root: repo.root, cwd: repo.root, env, requireRendered: true });
    expect(result.notRendered).toEqual([]);
    expect(result.resources.filter((r) => r.kind === 'ConfigMap' && r.name !== 'cluster-facts').map((r) => r.name)).toEqual(['built-web']);
  });

  it(`is followed a few levels deep; past them, its sources are counted as not rendered`, async () => {
    const repo = fixtureRepo();
    repo.write('apps/level0/application.yaml', madeApp('level0', 'apps/level0'));
    // Each level's chart makes the next level's Application; the last makes a kustomize app.
    for (let level = 0; level < 6; level++) chartFolder(repo, `level${level}`, madeApp(`level${level + 1}`, `apps/level${level + 1}`));
    const result = await runGate({ root: repo.root, cwd: repo.root, env });
    expect(result.notRendered.map((n) => `${n.app}: ${n.message}`)).toEqual([
      'level5: an Application 5 renders deep: the gate renders Applications that renders make 4 deep',
    ]);
  });

  it('what it syncs beyond the manifest roots is read and judged, as Argo CD reads any path of the checkout', async () => {
    const repo = parentMakingWeb('extras/web');
    repo.write(
      'extras/web/pod.yaml',
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  hostPID: true\n  containers:\n    - name: web\n      image: nginx:1.27\n',
    );
    const findings = allFindings(await runGate({ root: repo.root, cwd: repo.root, env })).filter((f) => f.file === 'extras/web/pod.yaml');
    // The layout's rule says where it stands; the workload checks say what the Pod is (it was never read before).
    expect(findings.map((f) => f.check)).toEqual(expect.arrayContaining(['manifest-roots', 'workload-privilege']));
  });
});
