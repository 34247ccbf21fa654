/** Broken copies of the real repository for the checks of policy-tests/checks/argocd/argocd.ts: each fails exactly its check, at its line. */
import { lineOf, type RepoCopy } from '../support/helpers.ts';
import type { Document } from 'yaml';
import type { Mutation } from '../support/mutation-runner.ts';
import {
  API,
  API_AUTOSCALER,
  apiAutoscaler,
  metricsServerOutsideGit,
  NAMESPACES,
  platformAllows,
  PORTFOLIO_APP,
  PROJECTS,
  ROOT_APP,
  REPO_URL,
  SERVICE,
  swap,
} from './edits.ts';

const PORTFOLIO_POLICIES = 'portfolio-api/deploy/networkpolicy.yaml';
const TAUTULLI_APP = 'apps/media/tautulli/application.yaml';

/** The portfolio project given one sync window. */
/** The first document of `file` annotated with `key: value` (its only annotation), and the line it lands on. */
const annotated = (file: string, key: string, value: string) => ({
  mutate: (c: RepoCopy) => c.edit(file, 0, (d) => d.setIn(['metadata', 'annotations'], d.createNode({ [key]: value }))),
  at: (c: RepoCopy) => ({ file, line: lineOf(c, file, `${key}: ${value}`) }),
});

const withWindow = (window: Record<string, unknown>) => (d: Document) => d.setIn(['spec', 'syncWindows'], d.createNode([window]));

const mutations: Mutation[] = [
  {
    check: 'argocd-app-folder',
    why: 'application.yaml carries a second, non-Application document',
    mutate: (c) =>
      c.write(PORTFOLIO_APP, `${c.read(PORTFOLIO_APP)}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stowaway\n  namespace: portfolio\n`),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, 'kind: ConfigMap') }),
  },
  {
    check: 'argocd-app-folder',
    why: 'a folder of manifests that no application.yaml declares',
    mutate: (c) => {
      c.write('apps/media/stray/configmap.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stray\n  namespace: media\n');
      // Give the stray file an owner so that only the missing application.yaml is at fault.
      c.edit(ROOT_APP, 0, (d) => d.setIn(['spec', 'source', 'directory', 'include'], '{clusters/home/*.yaml,*/application.yaml,apps/media/stray/*}'));
    },
    at: () => ({ file: 'apps/media/stray/configmap.yaml', line: 1 }),
  },
  {
    check: 'argocd-source-path',
    why: 'a second source points at a folder that does not exist',
    mutate: (c) =>
      c.edit(PORTFOLIO_APP, 0, (d) => {
        const source = d.getIn(['spec', 'source']);
        d.deleteIn(['spec', 'source']);
        d.setIn(['spec', 'sources'], d.createNode([source, { repoURL: REPO_URL, targetRevision: 'main', path: 'portfolio-api/deploy-missing' }]));
      }),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, 'deploy-missing') }),
  },
  {
    check: 'argocd-source-path',
    why: "the stats tracker's path written from the root, /apps/media/tautulli: Argo CD refuses an absolute app path and fails the source, where the gate read it from the root",
    mutate: swap('apps/media/tautulli/application.yaml', 'path: apps/media/tautulli', 'path: /apps/media/tautulli'),
    at: (c) => ({ file: 'apps/media/tautulli/application.yaml', line: lineOf(c, 'apps/media/tautulli/application.yaml', 'path: /apps/media/tautulli') }),
  },
  {
    check: 'argocd-source-path',
    why: "MetalLB's values source keyed `ref: metallb.values`, its value file $metallb.values/...: Argo CD takes only letters, digits, _ and - in a ref, and refuses the Application",
    mutate: (c) =>
      c.write(
        'apps/platform/metallb/application.yaml',
        c.read('apps/platform/metallb/application.yaml').replaceAll('ref: values', 'ref: metallb.values').replaceAll('$values/', '$metallb.values/'),
      ),
    at: (c) => ({ file: 'apps/platform/metallb/application.yaml', line: lineOf(c, 'apps/platform/metallb/application.yaml', 'ref: metallb.values') }),
  },
  {
    check: 'argocd-source-path',
    why: "MetalLB's values as a glob that matches no file: Argo CD 3.5 fails the source (values file glob matched no files)",
    mutate: (c) =>
      c.edit('apps/platform/metallb/application.yaml', 0, (d) =>
        d.setIn(['spec', 'sources', 0, 'helm', 'valueFiles'], d.createNode(['$values/apps/platform/metallb/values-*.yaml'])),
      ),
    at: (c) => ({ file: 'apps/platform/metallb/application.yaml', line: lineOf(c, 'apps/platform/metallb/application.yaml', 'values-*.yaml') }),
  },
  {
    check: 'argocd-track-main',
    why: 'the app tracks HEAD instead of main',
    mutate: (c) => c.edit(PORTFOLIO_APP, 0, (d) => d.setIn(['spec', 'source', 'targetRevision'], 'HEAD')),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, 'targetRevision: HEAD') }),
  },
  {
    check: 'argocd-chart-pinned',
    why: 'a chart source asks for a version range',
    mutate: (c) => {
      c.edit(PORTFOLIO_APP, 0, (d) => {
        const source = d.getIn(['spec', 'source']);
        d.deleteIn(['spec', 'source']);
        d.setIn(['spec', 'sources'], d.createNode([source, { repoURL: 'https://charts.example.org', chart: 'redis', targetRevision: '^19.0.0' }]));
      });
      // The chart repository is permitted, so the version range is the one thing wrong (argocd-project-sources).
      const projects = c.read(PROJECTS);
      const at = projects.indexOf('  name: portfolio');
      c.write(PROJECTS, projects.slice(0, at) + projects.slice(at).replace(`    - ${REPO_URL}\n`, `    - ${REPO_URL}\n    - https://charts.example.org\n`));
    },
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, '^19.0.0') }),
  },
  {
    check: 'argocd-sync-policy',
    why: 'selfHeal is off',
    mutate: (c) => c.edit(PORTFOLIO_APP, 0, (d) => d.setIn(['spec', 'syncPolicy', 'automated', 'selfHeal'], false)),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, 'selfHeal: false') }),
  },
  {
    check: 'argocd-sync-policy',
    why: "automated sync is switched off (Argo CD 3's automated.enabled: false), prune and selfHeal still written",
    mutate: (c) => c.edit(PORTFOLIO_APP, 0, (d) => d.setIn(['spec', 'syncPolicy', 'automated', 'enabled'], false)),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, 'enabled: false') }),
  },
  {
    check: 'argocd-sync-policy',
    why: "the Application is annotated skip-reconcile (Go's ParseBool reads 'True' as true): the controller never processes it",
    mutate: (c) => c.edit(PORTFOLIO_APP, 0, (d) => d.setIn(['metadata', 'annotations'], d.createNode({ 'argocd.argoproj.io/skip-reconcile': 'True' }))),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, 'skip-reconcile') }),
  },
  {
    check: 'argocd-sync-policy',
    why: "the Application lives outside the controller's namespace (its project lets the root app put it there): Argo CD never processes it",
    mutate: (c) => {
      c.edit(PORTFOLIO_APP, 0, (d) => d.setIn(['metadata', 'namespace'], 'portfolio'));
      platformAllows('portfolio')(c);
    },
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, 'namespace: portfolio') }),
  },
  {
    check: 'argocd-cascade',
    why: 'the portfolio Application lost its resources finalizer: deleting its application.yaml would leave the API running, managed by nothing',
    mutate: (c) => c.edit(PORTFOLIO_APP, 0, (d) => d.deleteIn(['metadata', 'finalizers'])),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, 'metadata:') }),
  },
  {
    check: 'argocd-cascade',
    why: 'the root app carries the resources finalizer: deleting it would delete every Application and all they run',
    mutate: (c) => c.edit(ROOT_APP, 0, (d) => d.setIn(['metadata', 'finalizers'], d.createNode(['resources-finalizer.argocd.argoproj.io/foreground']))),
    at: (c) => ({ file: ROOT_APP, line: lineOf(c, ROOT_APP, 'resources-finalizer.argocd.argoproj.io/foreground') }),
  },
  {
    check: 'argocd-prune',
    why: 'a Service annotated Prune=false stays in the cluster after its manifest is deleted',
    mutate: (c) =>
      c.edit(SERVICE, 0, (d) => d.setIn(['metadata', 'annotations'], d.createNode({ 'argocd.argoproj.io/sync-options': 'Validate=false, Prune=false' }))),
    at: (c) => ({ file: SERVICE, line: lineOf(c, SERVICE, 'Prune=false') }),
  },
  {
    check: 'argocd-prune',
    why: "an Application's syncOptions make the deletion of all its objects wait for a person",
    mutate: (c) => c.edit(PORTFOLIO_APP, 0, (d) => d.setIn(['spec', 'syncPolicy', 'syncOptions'], d.createNode(['Delete=confirm']))),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, 'Delete=confirm') }),
  },
  {
    check: 'argocd-sync-policy',
    why: "the API's Application ignores its image with a jq expression Argo CD cannot compile: its comparison fails, and it never syncs",
    mutate: (c) =>
      c.edit(PORTFOLIO_APP, 0, (d) =>
        d.setIn(
          ['spec', 'ignoreDifferences'],
          d.createNode([{ group: 'apps', kind: 'Deployment', jqPathExpressions: ['.spec.template.spec.containers[] | select(.name == "api" | .image'] }]),
        ),
      ),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, 'select(.name') }),
  },
  {
    check: 'argocd-sync-policy',
    why: "the API's retry backoff is written 1d, which Argo CD cannot read: a failed automated sync is never retried",
    mutate: (c) => c.edit(PORTFOLIO_APP, 0, (d) => d.setIn(['spec', 'syncPolicy', 'retry'], d.createNode({ limit: 5, backoff: { duration: '1d' } }))),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, 'duration: 1d') }),
  },
  {
    check: 'argocd-prune',
    why: "the API's Application prunes with PrunePropagationPolicy=orphan: deleting the Deployment's manifest would leave its pods running",
    mutate: (c) => c.edit(PORTFOLIO_APP, 0, (d) => d.setIn(['spec', 'syncPolicy', 'syncOptions'], d.createNode(['PrunePropagationPolicy=orphan']))),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, 'PrunePropagationPolicy=orphan') }),
  },
  {
    check: 'argocd-prune',
    why: 'the media namespace forced (Force=true): a sync that cannot patch it deletes and recreates it, and everything in it',
    mutate: (c) => c.edit(NAMESPACES, 0, (d) => d.setIn(['metadata', 'annotations', 'argocd.argoproj.io/sync-options'], 'Force=true')),
    at: (c) => ({ file: NAMESPACES, line: lineOf(c, NAMESPACES, 'Force=true') }),
  },
  {
    check: 'argocd-hooks',
    why: "the portfolio namespace's default-deny policy is annotated hook: Skip: Argo CD never applies it, and the namespace stays open",
    ...annotated(PORTFOLIO_POLICIES, 'argocd.argoproj.io/hook', 'Skip'),
  },
  {
    check: 'argocd-hooks',
    why: 'a hook type spelt in lower case (presync) is none Argo CD knows: the Service is a hook of no phase, never applied',
    ...annotated(SERVICE, 'argocd.argoproj.io/hook', 'presync'),
  },
  {
    check: 'argocd-hooks',
    why: 'the disruption budget is a PostSync hook deleted once it succeeds: gone from the cluster after every sync',
    mutate: (c) =>
      c.edit(SERVICE, 1, (d) =>
        d.setIn(['metadata', 'annotations'], d.createNode({ 'argocd.argoproj.io/hook': 'PostSync', 'argocd.argoproj.io/hook-delete-policy': 'HookSucceeded' })),
      ),
    at: (c) => ({ file: SERVICE, line: lineOf(c, SERVICE, 'hook-delete-policy: HookSucceeded') }),
  },
  {
    check: 'argocd-sync-windows',
    why: 'a deny window written @daily: Argo CD parses five fields and no descriptor, CanSync errors, and the API never syncs again',
    mutate: (c) => c.edit(PROJECTS, 4, withWindow({ kind: 'deny', schedule: '@daily', duration: '1h', applications: ['portfolio-api'] })),
    at: (c) => ({ file: PROJECTS, line: lineOf(c, PROJECTS, 'schedule: "@daily"') }),
  },
  {
    check: 'argocd-sync-windows',
    why: 'a deny window opened every minute for an hour is never closed: the API never syncs on its own',
    mutate: (c) => c.edit(PROJECTS, 4, withWindow({ kind: 'deny', schedule: '* * * * *', duration: '1h', namespaces: ['portfolio'] })),
    at: (c) => ({ file: PROJECTS, line: lineOf(c, PROJECTS, 'syncWindows:') + 1 }),
  },
  {
    check: 'argocd-sync-windows',
    why: 'an allow window for an app name with a typo matches no Application: the freeze its author meant holds nothing back',
    mutate: (c) => c.edit(PROJECTS, 4, withWindow({ kind: 'allow', schedule: '0 2 * * *', duration: '2h', applications: ['portfolio-apii'] })),
    at: (c) => ({ file: PROJECTS, line: lineOf(c, PROJECTS, 'syncWindows:') + 1 }),
  },
  {
    check: 'argocd-sync-windows',
    why: "an evening freeze in europe/berlin, lower case: Go's time.LoadLocation finds no such zone file, and Argo CD reads the schedule in UTC, an hour or two off",
    mutate: (c) =>
      c.edit(PROJECTS, 4, withWindow({ kind: 'deny', schedule: '0 18 * * *', duration: '2h', timeZone: 'europe/berlin', applications: ['portfolio-api'] })),
    at: (c) => ({ file: PROJECTS, line: lineOf(c, PROJECTS, 'europe/berlin') }),
  },
  {
    check: 'argocd-sync-options',
    why: 'MetalLB prunes last, spelt PruneLast=True: Argo CD reads the option by its exact string, and prunes in the usual order',
    mutate: swap('apps/platform/metallb/application.yaml', '      - ServerSideApply=true\n', '      - ServerSideApply=true\n      - PruneLast=True\n'),
    at: (c) => ({ file: 'apps/platform/metallb/application.yaml', line: lineOf(c, 'apps/platform/metallb/application.yaml', 'PruneLast=True') }),
  },
  {
    check: 'argocd-sync-options',
    why: "the API's Service asks for CreateNamespace=true in its own sync-options, which Argo CD reads only in an Application",
    ...annotated(SERVICE, 'argocd.argoproj.io/sync-options', 'CreateNamespace=true'),
  },
  {
    check: 'argocd-sync-options',
    why: "the API's Service asks Argo CD to ignore it as extraneous, spelt IgnoreExtranous: read nowhere",
    ...annotated(SERVICE, 'argocd.argoproj.io/compare-options', 'IgnoreExtranous'),
  },
  {
    check: 'argocd-managed-namespace',
    why: "tautulli's Application labels its namespace through managedNamespaceMetadata without CreateNamespace=true: Argo CD writes none of it",
    mutate: (c) =>
      c.edit(TAUTULLI_APP, 0, (d) => d.setIn(['spec', 'syncPolicy', 'managedNamespaceMetadata'], d.createNode({ labels: { 'homelab/stack': 'media' } }))),
    at: (c) => ({ file: TAUTULLI_APP, line: lineOf(c, TAUTULLI_APP, 'managedNamespaceMetadata:') }),
  },
  {
    check: 'argocd-operation',
    why: "tautulli's Application carries an operation whose sync brings inline manifests: the controller applies them in place of the folder the gate judged, and again each time the root app applies the Application",
    mutate: (c) =>
      c.write(
        TAUTULLI_APP,
        `${c.read(TAUTULLI_APP)}operation:\n  sync:\n    manifests:\n      - |\n        apiVersion: v1\n        kind: ConfigMap\n        metadata:\n          name: unjudged\n          namespace: media\n`,
      ),
    at: (c) => ({ file: TAUTULLI_APP, line: lineOf(c, TAUTULLI_APP, 'operation:') }),
  },
  {
    check: 'argocd-sync-policy',
    why: 'an ExternalSecret writing a cluster Secret annotated skip-reconcile: Argo CD processes no Application that syncs to the cluster it declares',
    mutate: (c) =>
      c.write(
        'clusters/home/remote-cluster.yaml',
        'apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: remote-cluster\n  namespace: argocd\nspec:\n  secretStoreRef:\n    kind: ClusterSecretStore\n    name: homelab\n  target:\n    name: remote-cluster\n    template:\n      metadata:\n        labels:\n          argocd.argoproj.io/secret-type: cluster\n        annotations:\n          argocd.argoproj.io/skip-reconcile: "true"\n  dataFrom:\n    - extract:\n        key: remote-cluster\n',
      ),
    at: (c) => ({ file: 'clusters/home/remote-cluster.yaml', line: lineOf(c, 'clusters/home/remote-cluster.yaml', 'skip-reconcile') }),
  },
  {
    check: 'argocd-destination-namespace',
    why: 'the destination has no namespace',
    mutate: (c) => c.edit(PORTFOLIO_APP, 0, (d) => d.deleteIn(['spec', 'destination', 'namespace'])),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, 'destination:') }),
  },
  {
    check: 'argocd-destination',
    why: 'the destination names the cluster twice, by server and by name: Argo CD refuses both',
    mutate: (c) => c.edit(PORTFOLIO_APP, 0, (d) => d.setIn(['spec', 'destination', 'name'], 'in-cluster')),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, 'destination:') }),
  },
  {
    check: 'argocd-destination',
    why: 'the destination is an API server no cluster Secret declares',
    mutate: (c) => c.edit(PORTFOLIO_APP, 0, (d) => d.setIn(['spec', 'destination', 'server'], 'https://192.168.1.50:6443')),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, 'destination:') }),
  },
  {
    check: 'argocd-project',
    why: 'the app uses the default project',
    mutate: (c) => c.edit(PORTFOLIO_APP, 0, (d) => d.setIn(['spec', 'project'], 'default')),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, 'project: default') }),
  },
  {
    check: 'argocd-single-owner',
    why: 'the app no longer excludes its own application.yaml, which the root app also applies',
    mutate: (c) => c.edit(PORTFOLIO_APP, 0, (d) => d.deleteIn(['spec', 'source', 'directory'])),
    at: () => ({ file: PORTFOLIO_APP, line: 1 }),
  },
  {
    check: 'argocd-autoscaled-replicas',
    why: 'an autoscaler for the API, metrics-server in the cluster, and the Deployment still declaring its two replicas: Argo CD sets them back after every scale',
    mutate: (c) => {
      c.write(API_AUTOSCALER, apiAutoscaler('portfolio-api'));
      metricsServerOutsideGit(c);
    },
    at: (c) => ({ file: API, line: lineOf(c, API, 'replicas: 2') }),
  },
];

/** The checks of how Argo CD syncs an app: its policy, options, windows, pruning, hooks, cascade and operation. */
const SYNC_CHECKS = new Set([
  'argocd-sync-policy',
  'argocd-sync-options',
  'argocd-sync-windows',
  'argocd-prune',
  'argocd-hooks',
  'argocd-cascade',
  'argocd-operation',
]);

/** What Argo CD reads of an app before it syncs: its folder and source path, destination, project, chart pin, branch, owner. */
export const argocdMutations: Mutation[] = mutations.filter((m) => !SYNC_CHECKS.has(m.check));

/** How Argo CD syncs what it read: what its sync policy, options and windows do, and what it prunes, hooks and cascades. */
export const argocdSyncMutations: Mutation[] = mutations.filter((m) => SYNC_CHECKS.has(m.check));
