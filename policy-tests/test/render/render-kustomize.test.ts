/**
 * The render tier's kustomize builds with the real kustomize: components and patches, an Application's kustomize
 * options as Argo CD applies them, and argocd-cm's build options; the Helm charts a kustomization inflates are
 * render-kustomize-helm.test.ts'.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allFindings, runGate } from '../../gate/gate.ts';
import { loadRepo } from '../../model/repository/repo.ts';
import { withRendered } from '../../model/argocd/rendered.ts';
import { fixtureRepo, repoApp, type FixtureRepo } from '../../../test-support/render-fixtures.ts';
import { countingTool, env, rendered, useRenderLab } from '../../../test-support/render-lab.ts';
import { webRepo, withBuildOptions } from '../support/kustomize-app.ts';

useRenderLab();

describe('kustomize', () => {
  it('renders a kustomization with a component and a patch, with the real kustomize', async () => {
    const repo = fixtureRepo();
    repo.write('apps/components/backup/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - cronjob.yaml\n');
    repo.write(
      'apps/components/backup/cronjob.yaml',
      `apiVersion: batch/v1
kind: CronJob
metadata:
  name: backup
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
            - name: backup
              image: busybox:1.37
`,
    );
    repo.write(
      'apps/sonarr/kustomization.yaml',
      `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: media
resources:
  - configmap.yaml
components:
  - ../components/backup
patches:
  - target: { kind: CronJob, name: backup }
    patch: |-
      - op: replace
        path: /metadata/name
        value: sonarr-backup
      - op: replace
        path: /spec/schedule
        value: "15 3 * * *"
`,
    );
    repo.write('apps/sonarr/configmap.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sonarr-settings\ndata:\n  a: "1"\n');
    repo.write('apps/sonarr/application.yaml', repoApp('sonarr', '    path: apps/sonarr', '', 'media'));
    const plain = await loadRepo(repo.root);
    const cold = mkdtempSync(join(tmpdir(), 'render-cache-'));
    const kubectl = countingTool(cold, 'kubectl', env.KUSTOMIZE_BIN!);
    const result = await rendered(repo, { HOMELAB_CACHE_DIR: cold, KUSTOMIZE_BIN: kubectl.bin });
    const sonarr = result.renders[0]!;
    expect(sonarr.status, sonarr.message).toBe('rendered');
    // Local files only, no Helm, no plugins: its output is a function of its key, so the determinism check renders it once.
    expect(kubectl.calls().filter((args) => args[0] === 'kustomize')).toHaveLength(1);
    rmSync(cold, { recursive: true, force: true });
    expect(sonarr.consumedFiles).toEqual([
      'apps/components/backup/cronjob.yaml',
      'apps/components/backup/kustomization.yaml',
      'apps/sonarr/configmap.yaml',
      'apps/sonarr/kustomization.yaml',
    ]);
    const { repo: full } = withRendered(plain, result.renders);
    const cron = full.resources.find((r) => r.kind === 'CronJob')!;
    expect(cron).toMatchObject({ name: 'sonarr-backup', namespace: 'media', object: { spec: { schedule: '15 3 * * *' } } });
    // The ConfigMap kustomize passed through keeps its own file and positions; the template it renamed is gone.
    const cm = full.resources.find((r) => r.kind === 'ConfigMap' && r.name === 'sonarr-settings')!;
    expect(cm).toMatchObject({ file: 'apps/sonarr/configmap.yaml', namespace: 'media' });
    expect(cm.rendered).toBeUndefined();
    expect(full.resources.filter((r) => r.name === 'backup')).toEqual([]);
  });

  it("stands each build's object in for its own input, where two builds hold an object of one name", async () => {
    const repo = fixtureRepo();
    for (const app of ['sonarr', 'radarr']) {
      repo.write(`apps/${app}/kustomization.yaml`, 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - target.yaml\n');
      repo.write(`apps/${app}/target.yaml`, `# ${app}'s\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: backup-target\ndata:\n  app: ${app}\n`);
      repo.write(`apps/${app}/application.yaml`, repoApp(app, `    path: apps/${app}`, '', app));
    }
    const { repo: full } = withRendered(await loadRepo(repo.root), (await rendered(repo)).renders);
    const targets = full.resources
      .filter((r) => r.name === 'backup-target')
      .map((r) => ({ file: r.file, app: (r.object.data as { app: string }).app, at: r.positions.at(['data', 'app'], 'value') }))
      .sort((a, b) => a.file.localeCompare(b.file));
    expect(targets).toEqual([
      { file: 'apps/radarr/target.yaml', app: 'radarr', at: { line: 7, col: 8 } },
      { file: 'apps/sonarr/target.yaml', app: 'sonarr', at: { line: 7, col: 8 } },
    ]);
  });
});

describe("an Application's kustomize options, as Argo CD applies them", () => {
  it('renders namePrefix, images, replicas, labels, annotations, namespace, patches and components into what the cluster gets', async () => {
    const repo = webRepo(
      [
        '      namePrefix: lab-',
        '      images: [ghcr.io/example/web=ghcr.io/example/web-hardened:2.0.0]',
        '      replicas: [{name: web, count: 3}]',
        '      commonLabels: {tier: front}',
        '      commonAnnotations: {owner: ops}',
        '      namespace: web-prod',
        '      components: [../components/debug]',
        '      patches:',
        '        - target: {kind: Deployment, name: web}',
        '          patch: |-',
        '            - op: add',
        '              path: /spec/template/spec/hostPID',
        '              value: true',
      ].join('\n'),
    );
    const result = await rendered(repo);
    const web = result.renders[0]!;
    expect(web.status, web.message).toBe('rendered');
    const deployment = web.resources.find((r) => r.kind === 'Deployment')!;
    expect(deployment).toMatchObject({
      name: 'lab-web',
      namespace: 'web-prod',
      object: {
        metadata: { labels: { team: 'web', tier: 'front' }, annotations: { owner: 'ops' } },
        spec: { replicas: 3, template: { spec: { hostPID: true, containers: [{ image: 'ghcr.io/example/web-hardened:2.0.0' }] } } },
      },
    });
    expect(web.resources.find((r) => r.kind === 'ConfigMap')).toMatchObject({ name: 'lab-debug', namespace: 'web-prod' });
    // The hostPID the Application's patch adds is judged like any other: the gate sees it.
    const findings = allFindings(await runGate({ root: repo.root, cwd: repo.root, env }));
    expect(findings.map((f) => f.message).join('\n')).toMatch(/hostPID/);
  });

  it("substitutes Argo CD's build environment where its Build does: labels and images always, annotations only when asked", async () => {
    const result = await rendered(
      webRepo(
        [
          "      commonLabels: {owner: '${ARGOCD_APP_NAME}'}",
          "      commonAnnotations: {project: '$ARGOCD_APP_PROJECT_NAME', literal: '$ARGOCD_APP_NAME'}",
          "      images: ['ghcr.io/example/web=ghcr.io/example/${ARGOCD_APP_NAME}:2.0.0']",
        ].join('\n'),
      ),
    );
    const deployment = result.renders[0]!.resources.find((r) => r.kind === 'Deployment')!;
    expect(deployment.object).toMatchObject({
      metadata: { labels: { owner: 'web' }, annotations: { project: '$ARGOCD_APP_PROJECT_NAME', literal: '$ARGOCD_APP_NAME' } },
      spec: { template: { spec: { containers: [{ image: 'ghcr.io/example/web:2.0.0' }] } } },
    });
    const substituted = await rendered(webRepo("      commonAnnotations: {project: '$ARGOCD_APP_PROJECT_NAME'}\n      commonAnnotationsEnvsubst: true"));
    expect(substituted.renders[0]!.resources.find((r) => r.kind === 'Deployment')!.object).toMatchObject({ metadata: { annotations: { project: 'default' } } });
    const revision = await rendered(webRepo("      images: ['ghcr.io/example/web:$ARGOCD_APP_REVISION_SHORT_8']"));
    expect(revision.renders[0]).toMatchObject({ status: 'not-rendered', message: expect.stringMatching(/names the revision Argo CD syncs/) });
  });

  it("builds with argocd-cm's load restrictor, as Argo CD adds kustomize.buildOptions to every build", async () => {
    const outside = (repo: FixtureRepo) => {
      repo.write('apps/common/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: common\ndata:\n  a: "1"\n');
      repo.write('apps/web/kustomization.yaml', 'resources:\n  - deployment.yaml\n  - ../common/cm.yaml\n');
      return repo;
    };
    const refused = await rendered(outside(webRepo('      namePrefix: lab-')));
    expect(refused.renders[0]).toMatchObject({ status: 'failed', message: expect.stringMatching(/is not in or below/) });
    const allowed = outside(webRepo('      namePrefix: lab-'));
    withBuildOptions(allowed, '--load-restrictor LoadRestrictionsNone --enable-helm');
    const built = await rendered(allowed);
    expect(built.renders[0]!.status, built.renders[0]!.message).toBe('rendered');
    expect(built.renders[0]!.resources.map((r) => r.name).sort()).toEqual(['lab-common', 'lab-web']);
  });

  it('fails as Argo CD does on a label the kustomization already sets without force, and refuses a kustomize version it does not run', async () => {
    const clash = await rendered(webRepo('      commonLabels: {team: other}'));
    expect(clash.renders[0]).toMatchObject({ status: 'failed', message: expect.stringMatching(/label team already in kustomization file/) });
    const forced = await rendered(webRepo('      commonLabels: {team: other}\n      forceCommonLabels: true'));
    expect(forced.renders[0]!.resources.find((r) => r.kind === 'Deployment')!.object).toMatchObject({ metadata: { labels: { team: 'other' } } });
    const version = await rendered(webRepo('      version: v4.5.7'));
    expect(version.renders[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/kustomize\.version asks Argo CD for another kustomize binary/),
    });
  });
});
