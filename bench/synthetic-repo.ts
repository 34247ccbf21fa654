/**
 * The benchmark's synthetic repository (bench/validate.bench.ts): the real repository plus generated app folders of
 * Deployments, Services, ConfigMaps, ServiceMonitors and ExternalSecrets, each a clean Application. A test holds a
 * small one to the gate's verdict of no finding (policy-tests/test/gate/synthetic-repo.test.ts), so a new check
 * cannot leave the benchmark throwing before it measures anything.
 */
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MANIFEST_ROOTS, REPO_ROOT, facts } from '../policy-tests/index.ts';

export const PER_KIND = { Deployment: 5, Service: 5, ConfigMap: 5, ServiceMonitor: 2, ExternalSecret: 2 } as const;
/** This repository's URL from the cluster facts, so the synthetic apps are this checkout's (a fork's too). */
const REPO_URL = facts.factsRepoURL(REPO_ROOT);

function appFolder(i: number): { application: string; workloads: string } {
  const ns = 'media';
  const name = `bench-${i}`;
  const application = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: ${name}
  namespace: argocd
  finalizers: [resources-finalizer.argocd.argoproj.io]
spec:
  project: media
  source:
    repoURL: ${REPO_URL}
    targetRevision: main
    path: apps/bench/${name}
    directory:
      exclude: application.yaml
  destination:
    server: https://kubernetes.default.svc
    namespace: ${ns}
  syncPolicy:
    automated:
      prune: true
      selfHeal: true
`;
  const docs: string[] = [];
  for (let j = 0; j < PER_KIND.Deployment; j++) {
    docs.push(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}-${j}
  namespace: ${ns}
  labels: {app: ${name}-${j}}
spec:
  replicas: 1
  selector:
    matchLabels: {app: ${name}-${j}}
  template:
    metadata:
      labels: {app: ${name}-${j}}
    spec:
      securityContext: {runAsNonRoot: true, runAsUser: 1000}
      containers:
        - name: app
          image: ghcr.io/example/app:1.${j}.0
          ports: [{name: http, containerPort: 8080}]
          env: [{name: TZ, value: Europe/Oslo}]
          livenessProbe: {httpGet: {path: /health, port: http}}
          readinessProbe: {httpGet: {path: /health, port: http}}
          resources: {requests: {cpu: 10m, memory: 64Mi}, limits: {memory: 128Mi}}
          securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}
          volumeMounts: [{name: config, mountPath: /config}]
      volumes:
        - name: config
          configMap: {name: ${name}-${j}}
`);
  }
  for (let j = 0; j < PER_KIND.Service; j++) {
    docs.push(`apiVersion: v1
kind: Service
metadata:
  name: ${name}-${j}
  namespace: ${ns}
  # The ServiceMonitor of the same name selects this Service by its labels.
  labels: {app: ${name}-${j}}
spec:
  selector: {app: ${name}-${j}}
  ports: [{name: http, port: 80, targetPort: http}]
`);
  }
  for (let j = 0; j < PER_KIND.ConfigMap; j++) {
    docs.push(`apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}-${j}
  namespace: ${ns}
data:
  settings.json: '{"level": ${j}}'
  mode: production
`);
  }
  for (let j = 0; j < PER_KIND.ServiceMonitor; j++) {
    docs.push(`apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: ${name}-${j}
  namespace: ${ns}
spec:
  selector: {matchLabels: {app: ${name}-${j}}}
  endpoints: [{port: http, interval: 30s, path: /metrics}]
`);
  }
  for (let j = 0; j < PER_KIND.ExternalSecret; j++) {
    docs.push(`apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: ${name}-${j}
  namespace: ${ns}
spec:
  # Read once: a thousand ExternalSecrets refreshing would exceed the store's daily budget (secret-store-budget).
  refreshPolicy: CreatedOnce
  secretStoreRef: {kind: ClusterSecretStore, name: homelab}
  target: {name: ${name}-${j}}
  data: [{secretKey: API_KEY, remoteRef: {key: ${name}/api-key}}]
`);
  }
  return { application, workloads: docs.join('---\n') };
}

/**
 * The real repository's manifest roots copied to a temp folder, plus `apps` synthetic app folders of
 * PER_KIND resources each, as clean as the real repository: every check has its subject and nothing to say.
 */
export function generateSyntheticRepo(apps: number): { root: string; resources: number } {
  const root = mkdtempSync(join(tmpdir(), 'gate-bench-'));
  // The real repository as the base (so every check has its subject), plus the synthetic apps.
  for (const r of MANIFEST_ROOTS) cpSync(join(REPO_ROOT, r), join(root, r), { recursive: true });
  // The code a metrics-catalog entry is read from (its pin), outside the manifest roots.
  cpSync(join(REPO_ROOT, 'portfolio-api/src/metrics.ts'), join(root, 'portfolio-api/src/metrics.ts'));
  // The lock, which pins the charts and the remote bases the Applications name (chart-lock reads it).
  cpSync(join(REPO_ROOT, 'charts.lock.json'), join(root, 'charts.lock.json'));
  let resources = 0;
  for (let i = 0; i < apps; i++) {
    const dir = join(root, 'apps', 'bench', `bench-${i}`);
    mkdirSync(dir, { recursive: true });
    const { application, workloads } = appFolder(i);
    writeFileSync(join(dir, 'application.yaml'), application);
    writeFileSync(join(dir, 'workloads.yaml'), workloads);
    resources += 1 + Object.values(PER_KIND).reduce((a, b) => a + b, 0);
  }
  // What the synthetic monitors scrape, as the metrics catalog describes every scrape source (a clean repository has one entry per exporter).
  const monitors = Array.from({ length: apps }, (_, i) =>
    Array.from({ length: PER_KIND.ServiceMonitor }, (_, j) => `  - { monitor: ServiceMonitor/media/bench-${i}-${j} }`),
  ).flat();
  writeFileSync(
    join(root, 'monitoring/metrics-catalog/bench-app-1.0.0.yaml'),
    [
      'exporter: bench-app',
      'version: 1.0.0',
      'pin: { file: apps/bench/bench-0/application.yaml, contains: bench-0 }',
      `source: { repository: ${REPO_URL.replace(/\.git$/, '')}, ref: main, files: [bench/validate.bench.ts], extract: manual }`,
      'scrape:',
      ...monitors,
      'metrics:',
      '  bench_requests_total: [code]',
      '',
    ].join('\n'),
  );
  return { root, resources };
}
