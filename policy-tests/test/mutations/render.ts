/**
 * Mutations for the checks on rendered output. The copy's volsync
 * Application renders a stand-in chart of the tests' own (same name and
 * version, placed in a chart cache and locked), so the gate renders it with
 * the real Helm; the other charts stay not rendered, as on a machine that
 * never pulled them.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { cachedChartPath, CHART_LOCK_FILE, chartId, digestOf, formatLock, readLock, type ChartRef } from '../../render/charts.ts';
import { toolEnv, writeChart } from '../../../test-support/chart-repo.ts';
import { output } from '../../../test-support/exec.ts';
import { lineOf, type RepoCopy } from '../support/helpers.ts';
import type { Mutation, MutationSetup } from '../support/mutation-runner.ts';
import { inFile, swap } from './edits.ts';

export const VOLSYNC_VALUES = 'apps/platform/volsync/values.yaml';
export const VOLSYNC_APP = 'apps/platform/volsync/application.yaml';
/** A folder another Application (cert-manager, same project) applies: a copy here is declared by two apps. */
const PLAIN_COPY = 'apps/platform/cert-manager/volsync-copy.yaml';

/**
 * A stand-in chart's source packaged with the real Helm into the chart cache `env` names, where upstream's archive
 * would be, and the copy's lock given its digest where upstream's entry (or its pending line) was. The lock is written
 * past the copy's undo list: it belongs to every mutation of the list.
 */
async function placeStandIn(copy: RepoCopy, { cache, env, src, ref }: { cache: string; env: NodeJS.ProcessEnv; src: string; ref: ChartRef }): Promise<void> {
  await output(env.HELM_BIN!, ['package', src, '--destination', join(cache, 'pkg')], { env });
  const target = cachedChartPath(ref, env);
  mkdirSync(dirname(target), { recursive: true });
  renameSync(join(cache, 'pkg', `${ref.chart}-${ref.version}.tgz`), target);
  const lock = readLock(copy.root);
  const others = <T extends ChartRef>(list: readonly T[]): T[] => list.filter((c) => chartId(c) !== chartId(ref));
  writeFileSync(
    join(copy.root, CHART_LOCK_FILE),
    formatLock({
      charts: [...others(lock.charts), { ...ref, digest: digestOf(readFileSync(target)) }],
      pending: others(lock.pending ?? []),
      remotes: lock.remotes,
    }),
  );
}

/** What a stand-in chart is: the upstream chart it replaces, the Application that pins it, and what it holds. */
export interface StandIn {
  chart: string;
  repoURL: string;
  /** The Application whose `chart:` pins the version: the stand-in takes it, so a chart bump needs no change here. */
  app: string;
  values(copy: RepoCopy, version: string): Record<string, unknown>;
  files(copy: RepoCopy, version: string): Record<string, string>;
}

/**
 * The monitors the metrics catalog says the real chart renders (a scrape's `renders:`), where the stand-in's own files
 * render none of that name: each a ServiceMonitor of that name and namespace over an ExternalName Service (no pods to
 * judge), its job written by a relabelling to the catalog's. A stand-in without them would be a chart rendered without
 * its monitors, whose jobs nothing scrapes.
 */
function catalogMonitors(copy: RepoCopy, chart: string, own: Record<string, string>): Record<string, string> {
  const folder = 'monitoring/metrics-catalog';
  const scrapes = readdirSync(join(copy.root, folder))
    .filter((f) => f.endsWith('.yaml') && f !== 'exemptions.yaml')
    .flatMap((f) => (parse(copy.read(`${folder}/${f}`)) as { scrape?: Record<string, unknown>[] } | null)?.scrape ?? [])
    .filter((s) => s.chart === chart && typeof s.renders === 'string' && typeof s.job === 'string');
  const files: Record<string, string> = {};
  scrapes.forEach((s, i) => {
    const [kind, namespace, name] = String(s.renders).split('/');
    if (kind !== 'ServiceMonitor' || Object.values(own).some((t) => t.includes('kind: ServiceMonitor') && t.includes(`name: ${name}\n`))) return;
    const path = typeof s.path === 'string' ? `      path: ${s.path}\n` : '';
    files[`templates/standin-monitor-${i}.yaml`] =
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: standin-monitor-${i}\n  namespace: ${namespace}\n  labels:\n    standin-monitor: "${i}"\nspec:\n  type: ExternalName\n  externalName: standin.invalid\n  ports:\n    - name: metrics\n      port: 9090\n---\n` +
      `apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\nspec:\n  selector:\n    matchLabels:\n      standin-monitor: "${i}"\n  endpoints:\n    - port: metrics\n${path}      interval: ${typeof s.interval === 'string' ? s.interval : '30s'}\n      relabelings:\n        - targetLabel: job\n          replacement: ${JSON.stringify(s.job)}\n`;
  });
  return files;
}

/** A mutation list's setup: the stand-in chart at the version the copy pins, in a fresh chart cache, and that cache removed after. */
export function standInChart(spec: StandIn): MutationSetup {
  let cache = '';
  return {
    async before(copy: RepoCopy) {
      cache = mkdtempSync(join(tmpdir(), `standin-${spec.chart}-`));
      // A chart cache of its own; renders go to the shared render cache, keyed by every input (the stand-in's
      // digest included), as the other mutation lists' do: a fresh one rendered every kustomization cold, twice a run.
      const env = await toolEnv({ HOMELAB_CHART_CACHE: join(cache, 'charts') });
      const version = new RegExp(`chart: ${spec.chart}\\s+targetRevision: (\\S+)`).exec(copy.read(spec.app))![1]!;
      const files = spec.files(copy, version);
      const src = writeChart(join(cache, 'src'), {
        name: spec.chart,
        version,
        values: spec.values(copy, version),
        files: { ...catalogMonitors(copy, spec.chart, files), ...files },
      });
      await placeStandIn(copy, { cache, env, src, ref: { repoURL: spec.repoURL, chart: spec.chart, version } });
      return { env };
    },
    after() {
      if (cache) rmSync(cache, { recursive: true, force: true });
    },
  };
}

/** A stand-in for the volsync chart at the version the copy pins, declaring every key of the copy's values. */
export function standInVolsync(): MutationSetup {
  return standInChart({
    chart: 'volsync',
    repoURL: 'https://backube.github.io/helm-charts/',
    app: VOLSYNC_APP,
    values: (copy, version) => ({
      ...(parse(copy.read(VOLSYNC_VALUES)) as Record<string, unknown>),
      standinRandom: false,
      standinMonitor: true,
      standinPassword: '',
      standinCrd: true,
      standinCrdKind: 'ReplicationSource',
      // The image the real chart runs at this version (its appVersion): metrics-catalog-current holds the
      // catalog entry to what the render names.
      standinImageTag: version,
      standinManager: false,
    }),
    files: () => ({
      // The controller's image as a data key: the stand-in renders no Deployment, and an image any rendered object names counts.
      'templates/configmap.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: volsync-standin\n  namespace: {{ .Release.Namespace }}\ndata:\n  manageCRDs: {{ .Values.manageCRDs | quote }}\n  disableAuth: {{ .Values.metrics.disableAuth | quote }}\n  image: "quay.io/backube/volsync:{{ .Values.standinImageTag }}"\n',
      // Like volsync's own (0.13 to 0.16): the ServiceMonitor volsync, in the release namespace.
      'templates/servicemonitor.yaml':
        '{{- if .Values.standinMonitor }}\napiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: volsync\nspec:\n  endpoints:\n    - port: https\n      interval: 30s\n  selector:\n    matchLabels:\n      control-plane: volsync-controller\n{{- end }}\n',
      'templates/secret.yaml':
        '{{- if .Values.standinPassword }}\napiVersion: v1\nkind: Secret\nmetadata:\n  name: volsync-login\n  namespace: {{ .Release.Namespace }}\nstringData:\n  password: {{ .Values.standinPassword | quote }}\n{{- end }}\n',
      // Like the real chart: the ReplicationSource CRD its Application declares (gate.homelab-gitops/provides-crds).
      'templates/crd.yaml':
        '{{- if .Values.standinCrd }}\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {{ lower .Values.standinCrdKind }}s.volsync.backube\nspec:\n  group: volsync.backube\n  scope: Namespaced\n  names: { kind: {{ .Values.standinCrdKind }}, plural: {{ lower .Values.standinCrdKind }}s, singular: {{ lower .Values.standinCrdKind }}, listKind: {{ .Values.standinCrdKind }}List }\n  versions:\n    - name: v1alpha1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          x-kubernetes-preserve-unknown-fields: true\n{{- end }}\n',
      // An ExternalName, not the real chart's Service selecting its controller's pods (control-plane:
      // volsync-controller): the stand-in renders no controller, and a Service selecting pods nobody runs, or one
      // without a selector that its ServiceMonitor reaches, is closure-service's to fail.
      'templates/service.yaml':
        'apiVersion: v1\nkind: Service\nmetadata:\n  name: volsync-metrics\n  labels:\n    control-plane: volsync-controller\nspec:\n  type: ExternalName\n  externalName: volsync.standin.invalid\n  ports:\n    - name: https\n      port: 8443\n',
      // Like the real chart's manager (its flags as 0.16 passes them), where a mutation asks for it: the stand-in
      // otherwise renders no controller, whose pod the workload checks would each judge.
      'templates/deployment.yaml':
        '{{- if .Values.standinManager }}\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: volsync\nspec:\n  selector:\n    matchLabels:\n      control-plane: volsync-controller\n  template:\n    metadata:\n      labels:\n        control-plane: volsync-controller\n    spec:\n      containers:\n        - name: manager\n          image: "quay.io/backube/volsync:{{ .Values.standinImageTag }}"\n          args:\n            - --metrics-bind-address=:8443\n            - --metrics-secure\n            {{- if .Values.metrics.disableAuth }}\n            - --metrics-require-rbac=false\n            {{- end }}\n          resources:\n            requests: { cpu: 100m, memory: 64Mi }\n            limits: { memory: 256Mi }\n          securityContext:\n            allowPrivilegeEscalation: false\n            runAsNonRoot: true\n            readOnlyRootFilesystem: true\n            capabilities: { drop: [ALL] }\n            seccompProfile: { type: RuntimeDefault }\n{{- end }}\n',
      'templates/random.yaml':
        '{{- if .Values.standinRandom }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: volsync-random\n  namespace: {{ .Release.Namespace }}\ndata:\n  token: {{ randAlphaNum 20 | quote }}\n{{- end }}\n',
    }),
  });
}

/** What a chart is handed that it neither declares nor reads, from each place Argo CD hands it values. */
export const helmValuesMutations: Mutation[] = [
  {
    check: 'helm-values-unused',
    why: 'a values key the chart neither declares nor reads, at its line',
    mutate: (c) => c.write(VOLSYNC_VALUES, `${c.read(VOLSYNC_VALUES)}metricz:\n  enabled: true\n`),
    at: 'metricz:',
  },
  {
    check: 'helm-values-unused',
    why: 'a values glob (Argo CD 3.5 expands $values/.../values-*.yaml to the files it matches) brings in a file with an unknown key',
    mutate: (c) => {
      c.edit(VOLSYNC_APP, 0, (d) => d.addIn(['spec', 'sources', 0, 'helm', 'valueFiles'], '$values/apps/platform/volsync/values-*.yaml'));
      c.write('apps/platform/volsync/values-metrics.yaml', 'metricz:\n  enabled: true\n');
    },
    at: (c) => ({ file: 'apps/platform/volsync/values-metrics.yaml', line: lineOf(c, 'apps/platform/volsync/values-metrics.yaml', 'metricz:') }),
  },
  {
    check: 'helm-values-unused',
    why: "an unknown key in the Application's helm.valuesObject, which Argo CD hands the chart after the value files",
    mutate: (c) => c.edit(VOLSYNC_APP, 0, (d) => d.setIn(['spec', 'sources', 0, 'helm', 'valuesObject'], d.createNode({ metricz: { enabled: true } }))),
    at: (c) => ({ file: VOLSYNC_APP, line: lineOf(c, VOLSYNC_APP, 'metricz:') }),
  },
  {
    check: 'helm-values-unused',
    why: "an unknown key in the Application's helm.values string, at its line in the Application",
    mutate: (c) =>
      c.edit(VOLSYNC_APP, 0, (d) => {
        const text = d.createNode('manageCRDs: true\nmetricz:\n  enabled: true\n');
        text.type = 'BLOCK_LITERAL';
        d.setIn(['spec', 'sources', 0, 'helm', 'values'], text);
      }),
    at: (c) => ({ file: VOLSYNC_APP, line: lineOf(c, VOLSYNC_APP, 'metricz:') }),
  },
  {
    check: 'helm-values-unused',
    why: "an unknown key set by a helm parameter (--set), at the parameter's name",
    mutate: (c) =>
      c.edit(VOLSYNC_APP, 0, (d) => d.setIn(['spec', 'sources', 0, 'helm', 'parameters'], d.createNode([{ name: 'metricz.enabled', value: 'true' }]))),
    at: (c) => ({ file: VOLSYNC_APP, line: lineOf(c, VOLSYNC_APP, 'metricz.enabled') }),
  },
  {
    check: 'helm-values-unused',
    why: 'a YAML merge key (<<) in the values file brings in an unknown key: Helm and Argo CD expand it, and so does the gate',
    mutate: (c) => c.write(VOLSYNC_VALUES, `${c.read(VOLSYNC_VALUES)}base: &base\n  metricz: true\n<<: *base\n`),
    at: 'base: &base',
  },
];

/** What the rendered objects are. */
export const renderMutations: Mutation[] = [
  {
    check: 'render-deterministic',
    why: 'randAlphaNum makes two renders differ, named at the chart source',
    mutate: (c) => c.write(VOLSYNC_VALUES, `${c.read(VOLSYNC_VALUES)}standinRandom: true\n`),
    at: (c) => ({ file: VOLSYNC_APP, line: lineOf(c, VOLSYNC_APP, 'chart: volsync') }),
  },
  {
    check: 'no-plain-secret',
    why: 'a credential in a values file, rendered into a Secret by the chart',
    mutate: (c) => c.write(VOLSYNC_VALUES, `${c.read(VOLSYNC_VALUES)}standinPassword: hunter2-in-git\n`),
    at: 'standinPassword:',
  },
  {
    check: 'closure-crd',
    why: 'the Application declares a CRD group its render does not install',
    mutate: (c) => c.write(VOLSYNC_VALUES, `${c.read(VOLSYNC_VALUES)}standinCrd: false\n`),
    at: (c) => ({ file: VOLSYNC_APP, line: lineOf(c, VOLSYNC_APP, 'annotations:') }),
  },
  {
    check: 'closure-crd',
    why: 'the render installs a CRD of the declared group, but not the kind the backups use (per kind, not per group)',
    mutate: (c) => c.write(VOLSYNC_VALUES, `${c.read(VOLSYNC_VALUES)}standinCrdKind: ReplicationDestination\n`),
    at: (c) => ({
      file: 'apps/media/components/offsite-copy/replicationsource.yaml',
      line: lineOf(c, 'apps/media/components/offsite-copy/replicationsource.yaml', 'apiVersion: volsync.backube'),
    }),
  },
  {
    check: 'metrics-catalog-current',
    why: "the pinned chart renders another controller release than the catalog entry was read for (as falcosidekick's chart 0.14.0 runs 2.32.0 under appVersion 2.31.1)",
    mutate: (c) => c.write(VOLSYNC_VALUES, `${c.read(VOLSYNC_VALUES)}standinImageTag: 0.15.0\n`),
    at: (c) => ({
      file: 'monitoring/metrics-catalog/volsync-0.16.0.yaml',
      line: lineOf(c, 'monitoring/metrics-catalog/volsync-0.16.0.yaml', 'version: 0.16.0'),
    }),
  },
  {
    check: 'volsync-metrics',
    why: "the manager's metrics left behind RBAC (metrics.disableAuth: false), and the chart's ServiceMonitor scrapes them with no token: every scrape is answered 401",
    mutate: (c) => c.write(VOLSYNC_VALUES, `${c.read(VOLSYNC_VALUES).replace('disableAuth: true', 'disableAuth: false')}standinManager: true\n`),
    at: (c) => ({ file: VOLSYNC_VALUES, line: lineOf(c, VOLSYNC_VALUES, 'disableAuth: false') }),
  },
  {
    check: 'metrics-join',
    why: "the rendered chart has no ServiceMonitor, and no manifest adds one: the backup alert reads VolSync's sync state, which nothing scrapes",
    mutate: (c) => c.write(VOLSYNC_VALUES, `${c.read(VOLSYNC_VALUES)}standinMonitor: false\n`),
    at: (c) => ({
      file: 'monitoring/alert-rules/internet-backups.yaml',
      line: lineOf(c, 'monitoring/alert-rules/internet-backups.yaml', 'volsync_volume_out_of_sync'),
    }),
  },
  {
    check: 'duplicate-resource',
    why: "a plain ServiceMonitor beside the chart's own (the defect volsync 0.13.1 showed; 0.16.0 still renders its own)",
    mutate: (c) =>
      c.write(
        PLAIN_COPY,
        'apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: volsync\n  namespace: volsync-system\nspec:\n  selector:\n    matchLabels:\n      control-plane: volsync-controller\n  endpoints:\n    - port: https\n      interval: 60s\n',
      ),
    at: (c) => ({ file: PLAIN_COPY, line: lineOf(c, PLAIN_COPY, 'name: volsync') }),
  },
  {
    check: 'duplicate-resource',
    why: 'a plain manifest that repeats a rendered object',
    mutate: (c) => c.write(PLAIN_COPY, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: volsync-standin\n  namespace: volsync-system\ndata: {}\n'),
    at: (c) => ({ file: VOLSYNC_APP, line: lineOf(c, VOLSYNC_APP, 'chart: volsync') }),
  },
];

/** What the chart lock pins against what the Applications and kustomizations name: no chart rendered to judge it. */
export const chartLockMutations: Mutation[] = [
  {
    check: 'chart-lock',
    why: 'a chart bumped without its digest: the new version has no entry, and the old entry pins nothing',
    mutate: swap('apps/platform/snapshot-controller/application.yaml', 'targetRevision: 5.2.0', 'targetRevision: 5.2.1'),
    at: inFile('apps/platform/snapshot-controller/application.yaml', 'targetRevision: 5.2.1'),
  },
  {
    check: 'chart-lock',
    why: 'a lock entry no Application pins',
    mutate: (c) =>
      c.write(
        CHART_LOCK_FILE,
        c
          .read(CHART_LOCK_FILE)
          .replace(
            '"charts": [\n',
            `"charts": [\n    {\n      "repoURL": "https://charts.example.net",\n      "chart": "gone",\n      "version": "1.0.0",\n      "digest": "sha256:${'0'.repeat(64)}"\n    },\n`,
          ),
      ),
    at: (c) => ({ file: CHART_LOCK_FILE, line: lineOf(c, CHART_LOCK_FILE, '"charts": [') + 1 }),
  },
  {
    check: 'chart-lock',
    why: "a remote base with no digest in the lock: Argo CD's install manifest, unpinned",
    mutate: (c) => {
      const lock = JSON.parse(c.read(CHART_LOCK_FILE)) as Record<string, unknown>;
      delete lock.remotes;
      c.write(CHART_LOCK_FILE, `${JSON.stringify(lock, null, 2)}\n`);
    },
    at: inFile('apps/platform/argocd/kustomization.yaml', '- https://raw.githubusercontent.com/'),
  },
  {
    check: 'chart-lock',
    why: 'a remote entry no kustomization names',
    mutate: (c) =>
      c.write(
        CHART_LOCK_FILE,
        c
          .read(CHART_LOCK_FILE)
          .replace(
            '"remotes": [\n',
            `"remotes": [\n    {\n      "url": "https://raw.githubusercontent.com/example/gone/v1/x.yaml",\n      "digest": "sha256:${'1'.repeat(64)}"\n    },\n`,
          ),
      ),
    at: (c) => ({ file: CHART_LOCK_FILE, line: lineOf(c, CHART_LOCK_FILE, '"remotes": [') + 1 }),
  },
];
