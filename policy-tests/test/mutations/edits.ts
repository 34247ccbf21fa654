/** What the mutation lists share: the files they break, the edits that break them, and where the finding must point. */
import { CHART_LOCK_FILE, REPO_ROOT } from '../../model/repository/repo.ts';
import { factsRepoURL } from '../../model/repository/cluster-facts.ts';
import { type RepoCopy } from '../support/helpers.ts';
import { isSeq, parse, type Document } from 'yaml';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOG_DIR } from '../../model/monitoring/metrics-catalog.ts';

export const CONTAINER = ['spec', 'template', 'spec', 'containers', 0];
export const COPY_COMPONENT = 'apps/media/components/offsite-copy/replicationsource.yaml';

/** Replaces the first `from` in a file; a `from` that is not there is the mutation's own bug, said at once. */
export const swap = (file: string, from: string | RegExp, to: string) => (c: RepoCopy) => {
  const text = c.read(file);
  if (!(typeof from === 'string' ? text.includes(from) : from.test(text))) throw new Error(`${String(from)} not in ${file}`);
  c.write(file, text.replace(from, to));
};

/** The first line of `file` holding `needle`. */
export const inFile = (file: string, needle: string) => (c: RepoCopy) => ({
  file,
  line:
    c
      .read(file)
      .split('\n')
      .findIndex((l) => l.includes(needle)) + 1,
});

export const API = 'portfolio-api/deploy/deployment.yaml';

export const SERVICE = 'portfolio-api/deploy/service.yaml';

export const NAMESPACES = 'clusters/home/namespaces.yaml';

export const STORE = 'apps/platform/external-secrets/clustersecretstore.yaml';

/** The first line holding `needle` after the line holding `after`. */
export const after = (file: string, anchor: string, needle: string) => (c: RepoCopy) => {
  const lines = c.read(file).split('\n');
  const from = lines.findIndex((l) => l.includes(anchor));
  return { file, line: lines.findIndex((l, i) => i > from && l.includes(needle)) + 1 };
};

/** The media backups are kustomize components (apps/media/components/) that each app includes, naming itself in backup-target.yaml. */
export const DB_BACKUP_COMPONENT = 'apps/media/components/db-backup/cronjobs.yaml';

export const SONARR_TARGET = 'apps/media/sonarr/backup-target.yaml';

/** One app's own change to a job the component made: a JSON patch appended to its kustomization. */
export const patchJob = (app: string, job: string, ops: string) => (c: RepoCopy) => {
  const file = `apps/media/${app}/kustomization.yaml`;
  const text = c.read(file);
  c.write(
    file,
    `${text}${text.includes('\npatches:\n') ? '' : 'patches:\n'}  - target: { kind: CronJob, name: ${job} }\n    patch: |-\n${ops
      .split('\n')
      .map((l) => `      ${l}`)
      .join('\n')}\n`,
  );
};

export const inComponent = (needle: string) => (c: RepoCopy) => ({ file: DB_BACKUP_COMPONENT, line: lineIn(DB_BACKUP_COMPONENT, needle)(c) });

export const DRILL = 'apps/platform/backups/restore-test.yaml';

/** A plain folder of the media namespace, where a stray job can be dropped. */
export const STRAY = 'apps/media/unpackerr/lidarr-backup.yaml';

export const ETCD_JOBS = 'apps/platform/backups/etcd-backup.yaml';

export const lineIn = (file: string, whole: string) => (c: RepoCopy) =>
  c
    .read(file)
    .split('\n')
    .findIndex((l) => l.trim() === whole) + 1;

/** Drops one entry from a list in an app's kustomization.yaml. */
export const withoutEntry = (app: string, entry: string) => swap(`apps/media/${app}/kustomization.yaml`, `  - ${entry}\n`, '');

/** The 4K subtitle manager sends the movie manager it calls the 1080p one's key (its settings' radarr.apikey, from the environment). */
export const bazarr4kSendsRadarrKey = swap(
  'apps/media/bazarr-4k/deployment.yaml',
  '            - name: DYNACONF_RADARR__APIKEY\n              valueFrom:\n                secretKeyRef:\n                  name: radarr-4k-api-key\n',
  '            - name: DYNACONF_RADARR__APIKEY\n              valueFrom:\n                secretKeyRef:\n                  name: radarr-api-key\n',
);

export const DEPLOYMENT = 'portfolio-api/deploy/deployment.yaml';

export const PORTFOLIO_APP = 'portfolio-api/deploy/application.yaml';

export const ROOT_APP = 'clusters/home/root.yaml';

/** An app folder removed, with its chart's lock entry, as npm run charts:pull would leave the lock. */
export const removeApp = (dir: string, chart: string) => (c: RepoCopy) => {
  c.remove(dir);
  // The metrics catalog's entries for the chart go with it, as a real removal takes them (metrics-catalog-current
  // says an entry pinned to a chart no Application deploys).
  for (const file of readdirSync(join(c.root, CATALOG_DIR))) {
    const entry = parse(c.read(`${CATALOG_DIR}${file}`)) as { pin?: { chart?: string } } | null;
    if (entry?.pin?.chart === chart) c.remove(`${CATALOG_DIR}${file}`);
  }
  const lock = JSON.parse(c.read(CHART_LOCK_FILE)) as { charts: { chart: string }[]; pending?: { chart: string }[] };
  const keep = <T extends { chart: string }>(list: T[] = []) => list.filter((e) => e.chart !== chart);
  c.write(CHART_LOCK_FILE, `${JSON.stringify({ ...lock, charts: keep(lock.charts), ...(lock.pending ? { pending: keep(lock.pending) } : {}) }, null, 2)}\n`);
};

/**
 * A workload in the media namespace, whose Pod Security enforce level is
 * privileged: the hygiene checks that Pod Security would also refuse at the
 * portfolio's restricted level are proven here, one check at a time.
 */
export const MEDIA_DEPLOYMENT = 'apps/media/unpackerr/deployment.yaml';

/** The one workload in a namespace whose Pod Security level admits hostPath (media-vpn, privileged): the hostPath check's subject. */
export const PRIVILEGED_NS_DEPLOYMENT = 'apps/media/gluetun/deployment.yaml';

/** This repository's URL, as the cluster facts name it (a fork's own). */
export const REPO_URL = factsRepoURL(REPO_ROOT);

export const TUNING = 'security/falco/tuning.yaml';

/** The Falco tuning's rules text, rewritten where it lives: the one key of the tuning ConfigMap. */
export function editTuning(c: RepoCopy, rewrite: (rules: string) => string): void {
  c.edit(TUNING, 0, (d) => d.setIn(['data', 'homelab-tuning.yaml'], rewrite(String(d.getIn(['data', 'homelab-tuning.yaml'])))));
}

/** The tuning without each alternative (`or (...)`, on the two lines the file gives it) that holds one of `needles`. */
export const dropAlternatives =
  (...needles: string[]) =>
  (c: RepoCopy): void =>
    editTuning(c, (rules) => {
      const lines = rules.split('\n');
      const start = (i: number) => lines[i]!.trimStart().startsWith('or (') && needles.some((n) => `${lines[i]}${lines[i + 1]}`.includes(n));
      const dropped = lines.filter((_, i) => !start(i) && !(i > 0 && start(i - 1)));
      if (dropped.length !== lines.length - 2 * needles.length) throw new Error(`not one alternative each for ${needles.join(', ')}`);
      return dropped.join('\n');
    });

/** The images an app's facts say trip a Falco rule: the exemptions that go with the app when it is removed. */
export function trippingImages(c: RepoCopy, dir: string): string[] {
  const facts = parse(c.read(`${dir}/facts/images.yaml`)) as { images: { image: string; trips?: unknown[] }[] };
  return facts.images.filter((i) => (i.trips ?? []).length > 0).map((i) => i.image);
}

export const FALCO_VALUES = 'security/falco/values.yaml';

export const SIDEKICK_VALUES = 'security/falcosidekick/values.yaml';

export const EGRESS = 'security/falco/networkpolicy.yaml';

export const SONARR = 'apps/media/sonarr/deployment.yaml';

export const GLUETUN = 'apps/media/gluetun/deployment.yaml';

export const PLEX = 'apps/media/plex/deployment.yaml';

export const FOLDERS = 'apps/media/storage/folders.yaml';

export const QBT = ['spec', 'template', 'spec', 'containers', 2];

export const SONARR_SETTINGS = 'apps/media/sonarr/settings/sonarr.yaml';

export const RADARR_SETTINGS = 'apps/media/radarr/settings/radarr.yaml';

export const RADARR4K_SETTINGS = 'apps/media/radarr-4k/settings/radarr-4k.yaml';

export const QBT_SETTINGS = 'apps/media/gluetun/settings/qbittorrent.yaml';

export const PROWLARR_SETTINGS = 'apps/media/gluetun/settings/prowlarr.yaml';

export const CLEANUPARR_SETTINGS = 'apps/media/cleanuparr/settings/cleanuparr.yaml';

export const KPS = 'monitoring/kube-prometheus-stack/values.yaml';

export const WRANGLER = 'monitoring/watchdog/wrangler.toml';

export const WATCHDOG_ROUTE = ['alertmanager', 'config', 'route', 'routes', 0];

export const WATCHDOG_HOOK = ['alertmanager', 'config', 'receivers', 1, 'webhook_configs', 0];

export const CHAT = ['alertmanager', 'config', 'receivers', 2, 'slack_configs', 0];

export const EVENTS = ['alertmanager', 'config', 'receivers', 3, 'slack_configs', 0];

/** The line after `- name: <receiver>` that holds `field`. */
export const receiverFieldLine =
  (receiver: string, field: string) =>
  (c: RepoCopy): number => {
    const lines = c.read(KPS).split('\n');
    const start = lines.findIndex((l) => l.trim() === `- name: ${receiver}`);
    return start + 1 + lines.slice(start).findIndex((l) => l.includes(field));
  };

export const LOKI = 'monitoring/loki/values.yaml';

export const TEMPO = 'monitoring/tempo/values.yaml';

export const PROBES = 'monitoring/blackbox-exporter/probes.yaml';

export const SNMP = 'monitoring/snmp-exporter/values.yaml';

export const ALLOY = 'monitoring/alloy/values.yaml';

export const DASHBOARD = 'monitoring/dashboards/homelab-overview.yaml';

export const PLATFORM_RULES = 'monitoring/alert-rules/platform.yaml';

export const MEDIA_RULES = 'monitoring/alert-rules/media.yaml';

export const replaceFirst = (file: string, from: string, to: string) => (c: RepoCopy) => {
  const text = c.read(file);
  if (!text.includes(from)) throw new Error(`${file} no longer holds ${from}`);
  c.write(file, text.replace(from, to));
};

export const ARGOCD_CM = 'apps/platform/argocd/patches/argocd-cm.yaml';

export const TOOLS = 'apps/platform/argocd/facts/render-tools.yaml';

export const KUSTOMIZATION = 'apps/platform/argocd/kustomization.yaml';

export const CLASSES = 'apps/platform/rook-ceph-cluster/classes.yaml';

export const PORTFOLIO_INGRESS = 'portfolio-api/deploy/ingress.yaml';
export const PORTFOLIO_MIDDLEWARE = 'portfolio-api/deploy/middleware.yaml';

/** The API's Ingress names a chain Middleware, declared beside its headers Middleware, that names `refs` (YAML flow items). */
export function throughChain(...refs: string[]): (copy: RepoCopy) => void {
  return (copy) => {
    copy.write(
      PORTFOLIO_MIDDLEWARE,
      `${copy.read(PORTFOLIO_MIDDLEWARE)}---\napiVersion: traefik.io/v1alpha1\nkind: Middleware\nmetadata:\n  name: portfolio-chain\n  namespace: portfolio\n  annotations:\n    argocd.argoproj.io/sync-options: SkipDryRunOnMissingResource=true\nspec:\n  chain:\n    middlewares:\n${refs.map((r) => `      - ${r}\n`).join('')}`,
    );
    copy.write(PORTFOLIO_INGRESS, copy.read(PORTFOLIO_INGRESS).replace('portfolio-portfolio-headers@kubernetescrd', 'portfolio-portfolio-chain@kubernetescrd'));
  };
}

export const wave = (file: string, to: string) => (c: RepoCopy) =>
  c.write(file, c.read(file).replace(/argocd\.argoproj\.io\/sync-wave: "-?\d+"/, `argocd.argoproj.io/sync-wave: "${to}"`));

export const PROJECTS = 'clusters/home/projects.yaml';

/** Replaces the first `from` after `  name: <project>` in projects.yaml. */
export const inProject = (project: string, from: string, to: string) => (c: RepoCopy) => {
  const text = c.read(PROJECTS);
  const at = text.indexOf(`  name: ${project}\n`);
  if (at === -1 || !text.slice(at).includes(from)) throw new Error(`project ${project} no longer holds ${from}`);
  c.write(PROJECTS, text.slice(0, at) + text.slice(at).replace(from, to));
};

/**
 * argocd-cm's globalProjects gives the media project (labelled for it) the security project's lists, with `extra`
 * added to the security project after its (empty) clusterResourceWhitelist.
 */
export const mediaInheritsSecurity = (extra: string) => (c: RepoCopy) => {
  inProject('security', '  clusterResourceWhitelist: []\n', `  clusterResourceWhitelist: []\n${extra}`)(c);
  inProject('media', '  namespace: argocd\n', '  namespace: argocd\n  labels:\n    lab.example/inherits: security\n')(c);
  c.write(
    ARGOCD_CM,
    `${c.read(ARGOCD_CM)}  globalProjects: |\n    - labelSelector:\n        matchLabels:\n          lab.example/inherits: security\n      projectName: security\n`,
  );
};

/** The platform project (the root app's) lets its Applications land in `namespace` too. */
export const platformAllows = (namespace: string) =>
  inProject('platform', '      namespace: argocd\n', `      namespace: argocd\n    - server: https://kubernetes.default.svc\n      namespace: ${namespace}\n`);

export const PORTFOLIO_DEPLOYMENT = 'portfolio-api/deploy/deployment.yaml';

/** A HorizontalPodAutoscaler for the API, scaling `target` by CPU: what a fork adds to scale it. */
export const API_AUTOSCALER = 'portfolio-api/deploy/autoscaler.yaml';
export const apiAutoscaler = (target: string) =>
  `apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: portfolio-api\n  namespace: portfolio\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: ${target}\n  minReplicas: 2\n  maxReplicas: 4\n  metrics:\n    - type: Resource\n      resource:\n        name: cpu\n        target: {type: Utilization, averageUtilization: 70}\n`;

/** The cluster facts saying metrics-server serves the resource metrics API, installed outside git. */
export const metricsServerOutsideGit = swap(
  'clusters/home/cluster-facts.yaml',
  '  providedOutsideGit: |\n',
  '  providedOutsideGit: |\n    - kind: APIService\n      name: v1beta1.metrics.k8s.io\n      reason: metrics-server, installed with talosctl apply-config (kubelet serving certificates)\n',
);

/** A ConfigMap's manifest: `name` in `namespace`, each of `data`'s values double-quoted as YAML reads a JSON string. */
export const configMapText = ({ name, namespace, data }: { name: string; namespace: string; data: Record<string, string> }): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\ndata:\n${Object.entries(data)
    .map(([k, v]) => `  ${k}: ${JSON.stringify(v)}\n`)
    .join('')}`;

/** Appends that ConfigMap to `file` as another document (a container's envFrom source beside its workload). */
export const appendConfigMap = (file: string, configMap: Parameters<typeof configMapText>[0]) => (c: RepoCopy) =>
  c.write(file, `${c.read(file)}---\n${configMapText(configMap)}`);

/** Adds `volume` to a Deployment document's pod and mounts it at `mountPath` in its first container (a mount list made where it has none). */
export function addMountedVolume(d: Document, volume: { name: string } & Record<string, unknown>, mount: { mountPath: string; readOnly?: boolean }): void {
  const volumes = d.getIn(['spec', 'template', 'spec', 'volumes']);
  if (isSeq(volumes)) volumes.add(d.createNode(volume));
  const at = ['spec', 'template', 'spec', 'containers', 0, 'volumeMounts'];
  const entry = { name: volume.name, ...mount };
  const mounts = d.getIn(at);
  if (isSeq(mounts)) mounts.add(d.createNode(entry));
  else d.setIn(at, d.createNode([entry]));
}
