/**
 * The render tier's kustomize builds with the real kustomize: components and patches, an Application's kustomize
 * options as Argo CD applies them, argocd-cm's build options, and the Helm charts a kustomization inflates.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { c as createTar } from 'tar';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allFindings, runGate } from '../../gate/gate.ts';
import { loadRepo } from '../../model/repository/repo.ts';
import { withRendered } from '../../model/argocd/rendered.ts';
import { cachedChartPath, digestOf, formatLock, readLock } from '../../render/charts.ts';
import { unpackedFolder } from '../../render/chart-extract.ts';
import { pullCharts } from '../../../scripts/charts-pull.ts';
import { fixtureRepo, repoApp, type FixtureRepo } from '../../../test-support/render-fixtures.ts';
import { checkFindings } from '../../../test-support/gate-findings.ts';
import { charts, countingTool, env, rendered, useRenderLab } from '../../../test-support/render-lab.ts';

useRenderLab();

const lines: string[] = [];
const out = (line: string) => lines.push(line);

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
});

describe("an Application's kustomize options, as Argo CD applies them", () => {
  const app = (kustomize: string) => repoApp('web', `    path: apps/web\n    kustomize:\n${kustomize}`, '', 'web');
  /** argocd-cm's kustomize.buildOptions, as the repository's argocd-cm patch sets them for every build. */
  const withBuildOptions = (repo: FixtureRepo, options: string) =>
    repo.write(
      'apps/platform/argocd/patches/argocd-cm.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\n  namespace: argocd\ndata:\n  kustomize.buildOptions: ${options}\n`,
    );
  function webRepo(kustomize: string): FixtureRepo {
    const repo = fixtureRepo();
    repo.write(
      'apps/web/kustomization.yaml',
      'resources:\n  - deployment.yaml\nimages:\n  - name: ghcr.io/example/web\n    newTag: 1.0.0\ncommonLabels:\n  team: web\n',
    );
    repo.write(
      'apps/web/deployment.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: ghcr.io/example/web\n',
    );
    repo.write('apps/components/debug/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - cm.yaml\n');
    repo.write('apps/components/debug/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: debug\ndata:\n  level: trace\n');
    repo.write('apps/web/application.yaml', app(kustomize));
    return repo;
  }

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

  it("inflates a kustomization's Helm charts under argocd-cm's --enable-helm, from the chart cache and the lock, and fails without it as kustomize does", async () => {
    const inflating = (repo: FixtureRepo) => {
      repo.write(
        'apps/web/kustomization.yaml',
        `resources: [deployment.yaml]\nhelmCharts:\n  - name: demo\n    repo: ${charts.url}\n    version: 1.0.0\n    releaseName: lab\n    namespace: web\n    valuesInline: {greeting: inflated}\n`,
      );
      return repo;
    };
    const refused = await rendered(inflating(webRepo('      namePrefix: lab-')));
    expect(refused.renders[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/does not pass --enable-helm: kustomize refuses the build \("must specify --enable-helm"\)/),
    });
    const enabled = inflating(webRepo('      namePrefix: lab-'));
    withBuildOptions(enabled, '--enable-helm');
    // Not pulled yet: not rendered, with the command that pulls it; charts:pull reads kustomize's charts too.
    const cold = mkdtempSync(join(tmpdir(), 'inflate-cache-'));
    try {
      expect((await rendered(enabled, { HOMELAB_CACHE_DIR: cold })).renders[0]).toMatchObject({
        status: 'not-rendered',
        message: expect.stringMatching(/not in the chart cache: run npm run charts:pull/),
      });
      expect(await pullCharts({ root: enabled.root, env: { ...env, HOMELAB_CACHE_DIR: cold }, updateLock: true, out })).toBe(0);
      // The pull expands it as kustomize's helm pull --untar would, so the first build finds it expanded.
      const { digest } = readLock(enabled.root).charts.find((c) => c.chart === 'demo')!;
      expect(existsSync(join(unpackedFolder({ HOMELAB_CACHE_DIR: cold }, digest, 'helm-pull'), 'demo/Chart.yaml'))).toBe(true);
      const built = (await rendered(enabled, { HOMELAB_CACHE_DIR: cold })).renders[0]!;
      expect(built.status, built.message).toBe('rendered');
      // The chart's objects with the kustomization's values, the Application's prefix, the cluster's version for Helm.
      expect(built.resources.find((r) => r.name === 'lab-lab-greeting')?.object).toMatchObject({ data: { greeting: 'inflated', kube: 'v1.36.3' } });
      expect(existsSync(join(enabled.root, 'apps/web/charts'))).toBe(false);
      // A values file beside the kustomization's folder (the load restrictor off) is copied into the build too.
      const besideFolder = inflating(webRepo('      namePrefix: lab-'));
      withBuildOptions(besideFolder, '--enable-helm --load-restrictor LoadRestrictionsNone');
      besideFolder.write('charts.lock.json', readFileSync(join(enabled.root, 'charts.lock.json'), 'utf8'));
      besideFolder.write('apps/common-values.yaml', 'greeting: from a file\n');
      besideFolder.write(
        'apps/web/kustomization.yaml',
        readFileSync(join(besideFolder.root, 'apps/web/kustomization.yaml'), 'utf8').replace(
          '    valuesInline: {greeting: inflated}\n',
          '    valuesFile: ../common-values.yaml\n',
        ),
      );
      const fromFile = (await rendered(besideFolder, { HOMELAB_CACHE_DIR: cold })).renders[0]!;
      expect(fromFile.status, fromFile.message).toBe('rendered');
      expect(fromFile.resources.find((r) => r.name === 'lab-lab-greeting')?.object).toMatchObject({ data: { greeting: 'from a file' } });
      // The Application's own Kubernetes version and API versions for what it inflates (kustomize.kubeVersion,
      // kustomize.apiVersions: BuildOpts), the version parsed as the repo-server parses it; one it cannot parse fails the source.
      const versioned = inflating(webRepo('      namePrefix: lab-\n      kubeVersion: v1.31.2-gke.1\n      apiVersions: [example.com/v1]'));
      withBuildOptions(versioned, '--enable-helm');
      versioned.write('charts.lock.json', readFileSync(join(enabled.root, 'charts.lock.json'), 'utf8'));
      const own = (await rendered(versioned, { HOMELAB_CACHE_DIR: cold })).renders[0]!;
      expect(own.status, own.message).toBe('rendered');
      expect(own.resources.find((r) => r.name === 'lab-lab-greeting')?.object).toMatchObject({ data: { kube: 'v1.31.2' } });
      versioned.write('apps/web/application.yaml', app('      kubeVersion: "1"'));
      expect((await rendered(versioned, { HOMELAB_CACHE_DIR: cold })).renders[0]).toMatchObject({
        status: 'failed',
        message: expect.stringContaining('could not parse kubernetes version 1: illegal version string "1"'),
      });
      // An archive that holds a link is expanded as kustomize's `helm pull --untar` expands it: the link an empty
      // file, nothing read through it (Helm's archive loader reads a link's own content, which is none).
      const ref = { repoURL: charts.url, chart: 'demo', version: '1.0.0' };
      const archive = cachedChartPath(ref, { ...env, HOMELAB_CACHE_DIR: cold });
      const original = readFileSync(archive);
      const evil = mkdtempSync(join(tmpdir(), 'linked-chart-'));
      try {
        mkdirSync(join(evil, 'demo/templates'), { recursive: true });
        writeFileSync(join(evil, 'demo/Chart.yaml'), 'apiVersion: v2\nname: demo\nversion: 1.0.0\n');
        writeFileSync(join(evil, 'demo/values.yaml'), '{}\n');
        symlinkSync('/etc/hostname', join(evil, 'demo/templates/leak.yaml'));
        await createTar({ gzip: true, file: archive, cwd: evil }, ['demo']);
        const lock = readLock(enabled.root);
        enabled.write('charts.lock.json', formatLock({ ...lock, charts: lock.charts.map((c) => ({ ...c, digest: digestOf(readFileSync(archive)) })) }));
        const linked = (await rendered(enabled, { HOMELAB_CACHE_DIR: cold })).renders[0]!;
        expect(linked.status, linked.message).toBe('rendered');
        // The kustomization's own Deployment, and nothing of the chart's link.
        expect(linked.resources.map((r) => `${r.kind}/${r.name}`)).toEqual(['Deployment/lab-web']);
        expect(JSON.stringify(linked.resources)).not.toContain(readFileSync('/etc/hostname', 'utf8').trim());
      } finally {
        writeFileSync(archive, original);
        enabled.write(
          'charts.lock.json',
          formatLock({ ...readLock(enabled.root), charts: readLock(enabled.root).charts.map((c) => ({ ...c, digest: digestOf(original) })) }),
        );
        rmSync(evil, { recursive: true, force: true });
      }
      // A chart home out of the repository is refused before anything is unpacked there.
      for (const home of ['../../../../escape', '/tmp/escape']) {
        const hostile = inflating(webRepo('      namePrefix: lab-'));
        withBuildOptions(hostile, '--enable-helm');
        hostile.write('charts.lock.json', readFileSync(join(enabled.root, 'charts.lock.json'), 'utf8'));
        hostile.write(
          'apps/web/kustomization.yaml',
          `${readFileSync(join(enabled.root, 'apps/web/kustomization.yaml'), 'utf8')}helmGlobals: {chartHome: ${home}}\n`,
        );
        const refused = (await rendered(hostile, { HOMELAB_CACHE_DIR: cold })).renders[0]!;
        expect(refused, home).toMatchObject({ status: 'failed', message: expect.stringMatching(/leaves the repository/) });
        expect(existsSync(join(hostile.root, '..', 'escape')) || existsSync('/tmp/escape'), home).toBe(false);
      }
      // The lock holds the inflated chart as it holds an Application's; without its entry, chart-lock fails at the entry.
      const lockFindings = () => checkFindings('chart-lock', { root: enabled.root, env: { ...env, HOMELAB_CACHE_DIR: cold } });
      expect(await lockFindings()).toEqual([]);
      enabled.write('charts.lock.json', '{\n  "charts": []\n}\n');
      expect(await lockFindings()).toEqual([
        expect.stringMatching(
          /^apps\/web\/kustomization\.yaml:5 chart demo 1\.0\.0 from .*, which apps\/web\/kustomization\.yaml inflates, has no digest in charts\.lock\.json/,
        ),
      ]);
    } finally {
      rmSync(cold, { recursive: true, force: true });
    }
  });

  it('prints a kustomization once where no chart it inflates can print differently, and twice where one can', async () => {
    const vendoring = (template: string) => {
      const repo = webRepo('      namePrefix: lab-');
      withBuildOptions(repo, '--enable-helm');
      repo.write('apps/web/kustomization.yaml', 'resources: [deployment.yaml]\nhelmCharts:\n  - name: calm\n    version: 1.0.0\n    releaseName: lab\n');
      // With a version and no repository, kustomize reads the chart at <chartHome>/<name>, its values.yaml required.
      repo.write('apps/web/charts/calm/Chart.yaml', 'apiVersion: v2\nname: calm\nversion: 1.0.0\n');
      repo.write('apps/web/charts/calm/values.yaml', '{}\n');
      repo.write('apps/web/charts/calm/templates/cm.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: calm\ndata:\n  value: ${template}\n`);
      return repo;
    };
    for (const [template, prints] of [
      ['{{ .Release.Name | quote }}', 1],
      ['{{ randAlphaNum 8 | quote }}', 2],
    ] as const) {
      const cold = mkdtempSync(join(tmpdir(), 'inflate-prints-'));
      try {
        const helm = countingTool(cold, 'helm', env.HELM_BIN!);
        const built = (await rendered(vendoring(template), { HOMELAB_CACHE_DIR: cold, HELM_BIN: helm.bin })).renders[0]!;
        expect(built.status, built.message).toBe('rendered');
        expect(
          helm.calls().filter((args) => args[0] === 'template'),
          template,
        ).toHaveLength(prints);
        expect(built.nondeterministic.length > 0, template).toBe(prints === 2);
      } finally {
        rmSync(cold, { recursive: true, force: true });
      }
    }
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
