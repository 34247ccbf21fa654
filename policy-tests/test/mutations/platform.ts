/** Broken copies of the real repository for the platform checks. */
import type { Mutation } from '../support/mutation-runner.ts';
import type { RepoCopy } from '../support/helpers.ts';

const ARGOCD_CM = 'apps/platform/argocd/patches/argocd-cm.yaml';
const TOOLS = 'apps/platform/argocd/facts/render-tools.yaml';
const KUSTOMIZATION = 'apps/platform/argocd/kustomization.yaml';
const swap = (file: string, from: string, to: string) => (c: RepoCopy) => {
  if (!c.read(file).includes(from)) throw new Error(`${from} not in ${file}`);
  c.write(file, c.read(file).replace(from, to));
};

const CLASSES = 'apps/platform/rook-ceph-cluster/classes.yaml';
const COPY_COMPONENT = 'apps/media/components/offsite-copy/replicationsource.yaml';
const PORTFOLIO_INGRESS = 'portfolio-api/deploy/ingress.yaml';
const inFile = (file: string, needle: string) => (c: RepoCopy) => ({
  file,
  line:
    c
      .read(file)
      .split('\n')
      .findIndex((l) => l.includes(needle)) + 1,
});

const wave = (file: string, to: string) => (c: RepoCopy) =>
  c.write(file, c.read(file).replace(/argocd\.argoproj\.io\/sync-wave: "-?\d+"/, `argocd.argoproj.io/sync-wave: "${to}"`));

const PROJECTS = 'clusters/home/projects.yaml';
const PORTFOLIO_DEPLOYMENT = 'portfolio-api/deploy/deployment.yaml';

export const platformMutations: Mutation[] = [
  {
    check: 'closure-load-balancer',
    why: 'the MetalLB platform app removed, so the proxies get no address',
    mutate: (c) => c.remove('apps/platform/metallb'),
    at: inFile('apps/platform/ingress-private/application.yaml', 'requires-load-balancer'),
  },
  {
    check: 'closure-crd',
    why: "the Rook operator app removed, so the Ceph cluster's kinds have no CRD",
    mutate: (c) => c.remove('apps/platform/rook-ceph'),
    at: inFile('apps/platform/rook-ceph-cluster/application.yaml', 'requires-crds'),
  },
  {
    check: 'sync-order',
    why: 'the proxies in the same wave as MetalLB',
    mutate: wave('apps/platform/ingress-public/application.yaml', '-8'),
    at: inFile('apps/platform/ingress-public/application.yaml', 'requires-load-balancer'),
  },
  {
    check: 'closure-service-account',
    why: 'a pod running as a ServiceAccount nobody declares',
    mutate: (c) => c.edit('apps/media/unpackerr/deployment.yaml', 0, (d) => d.setIn(['spec', 'template', 'spec', 'serviceAccountName'], 'unpackerr')),
    at: 'serviceAccountName: unpackerr',
  },
  {
    check: 'closure-secret',
    why: 'an env var from a Secret nothing writes',
    mutate: swap(PORTFOLIO_DEPLOYMENT, '                  name: portfolio-api\n', '                  name: portfolio-api-old\n'),
    at: 'name: portfolio-api-old',
  },
  {
    check: 'closure-config-map',
    why: 'the status ConfigMap, which only a CronJob writes, made mandatory',
    mutate: swap(PORTFOLIO_DEPLOYMENT, '            name: portfolio-infra-status\n            optional: true\n', '            name: portfolio-infra-status\n'),
    at: 'name: portfolio-infra-status',
  },
  {
    check: 'closure-claim',
    why: 'a volume from a claim nobody declares',
    mutate: (c) =>
      c.edit('apps/media/unpackerr/deployment.yaml', 0, (d) => {
        const volumes = d.getIn(['spec', 'template', 'spec', 'volumes']) as { add(v: unknown): void };
        volumes.add(d.createNode({ name: 'scratch', persistentVolumeClaim: { claimName: 'unpackerr-scratch' } }));
      }),
    at: 'claimName: unpackerr-scratch',
  },
  {
    check: 'closure-service',
    why: 'a route to a Service nobody declares',
    mutate: swap('apps/media/sonarr/ingress.yaml', '                name: sonarr\n', '                name: sonarr-web\n'),
    at: 'name: sonarr-web',
  },
  {
    check: 'closure-service',
    why: 'a monitor scraping a port its Service lacks',
    mutate: swap('apps/media/sonarr/exporter.yaml', '    - port: metrics', '    - port: prometheus'),
    at: 'port: prometheus',
  },
  {
    check: 'argocd-project-scope',
    why: 'a media app binding cluster-admin, which its project does not allow',
    mutate: (c) =>
      c.write(
        'apps/media/unpackerr/admin.yaml',
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: unpackerr-admin\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: cluster-admin\nsubjects:\n  - kind: ServiceAccount\n    name: default\n    namespace: media\n',
      ),
    at: 'kind: ClusterRoleBinding',
  },
  {
    check: 'argocd-project-scope',
    why: 'the media project allowing every cluster-scoped kind',
    mutate: swap(PROJECTS, '      kind: PersistentVolume\n', '      kind: PersistentVolume\n    - group: "*"\n      kind: "*"\n'),
    at: (c) => ({
      file: PROJECTS,
      line:
        c
          .read(PROJECTS)
          .split('\n')
          .findIndex((l) => l.includes('group: "*"')) + 1,
    }),
  },
  {
    check: 'argocd-project-scope',
    why: 'the media project allowing a namespace none of its apps uses',
    mutate: swap(PROJECTS, '      namespace: media\n', '      namespace: media\n    - server: https://kubernetes.default.svc\n      namespace: monitoring\n'),
    at: (c) => ({
      file: PROJECTS,
      line:
        c
          .read(PROJECTS)
          .split('\n')
          .findIndex((l, i, all) => l.includes('namespace: monitoring') && all[i - 2]?.includes('namespace: media')) + 1,
    }),
  },
  {
    check: 'argocd-project-scope',
    why: 'a media app rendering a kind its project blacklists',
    mutate: (c) =>
      c.write(
        'apps/media/unpackerr/quota.yaml',
        'apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: media\n  namespace: media\nspec:\n  hard:\n    pods: "50"\n',
      ),
    at: 'kind: ResourceQuota',
  },
  {
    check: 'sync-order',
    why: 'cert-manager in the same wave as the secret store its token comes from',
    mutate: wave('apps/platform/cert-manager/application.yaml', '-8'),
    at: inFile('apps/platform/cert-manager/clusterissuer.yaml', 'name: homelab'),
  },
  {
    check: 'sync-order',
    why: 'an app in the same wave as the namespaces',
    mutate: wave('apps/media/unpackerr/application.yaml', '-20'),
    at: inFile('apps/media/unpackerr/deployment.yaml', 'namespace: media'),
  },
  {
    check: 'sync-order',
    why: 'the address pool in the dry run before its CRD exists',
    mutate: (c) =>
      c.write('apps/platform/metallb/addresses.yaml', c.read('apps/platform/metallb/addresses.yaml').replace(/ +argocd\.argoproj\.io\/sync-options: .*\n/, '')),
    at: 'apiVersion: metallb.io/v1beta1',
  },
  {
    check: 'closure-storage-class',
    why: 'the StorageClass the claims ask for renamed',
    mutate: swap(CLASSES, 'name: ceph-block\n  annotations:\n    storageclass', 'name: ceph-rbd\n  annotations:\n    storageclass'),
    at: 'storageClassName: ceph-block',
  },
  {
    check: 'closure-storage-class',
    why: 'the snapshot class VolSync uses renamed',
    mutate: swap(CLASSES, 'name: ceph-block\n  annotations:\n    snapshot', 'name: ceph-snapshots\n  annotations:\n    snapshot'),
    at: inFile(COPY_COMPONENT, 'volumeSnapshotClassName: ceph-block'),
  },
  {
    check: 'closure-storage-class',
    why: 'the storage platform app removed',
    mutate: (c) => c.remove('apps/platform/rook-ceph-cluster'),
    at: 'storageClassName: ceph-block',
  },
  {
    check: 'closure-ingress-class',
    why: 'the private IngressClass renamed',
    mutate: swap('apps/platform/ingress-private/ingressclass.yaml', 'name: private-gateway', 'name: lan-gateway'),
    at: 'ingressClassName: private-gateway',
  },
  // The public API's headers middleware goes with the proxy whose CRD it needs, or closure-crd would name it too.
  {
    check: 'closure-ingress-class',
    why: 'the public proxy app removed',
    mutate: (c) => {
      c.remove('apps/platform/ingress-public');
      c.remove('portfolio-api/deploy/middleware.yaml');
    },
    at: inFile(PORTFOLIO_INGRESS, 'ingressClassName: gateway'),
  },
  {
    check: 'closure-secret-store',
    why: 'the store every ExternalSecret reads renamed',
    mutate: swap('apps/platform/external-secrets/clustersecretstore.yaml', 'name: homelab', 'name: vault'),
    at: 'name: homelab',
  },
  {
    check: 'closure-secret-store',
    why: 'an ExternalSecret naming a store nobody declares',
    mutate: swap('monitoring/kube-prometheus-stack/externalsecrets.yaml', 'name: homelab', 'name: homelab-old'),
    at: 'name: homelab-old',
  },
  {
    check: 'closure-issuer',
    why: 'the ClusterIssuer the Certificate names renamed',
    mutate: swap('apps/platform/cert-manager/clusterissuer.yaml', 'name: letsencrypt\n', 'name: letsencrypt-production\n'),
    at: inFile(PORTFOLIO_INGRESS, 'name: letsencrypt'),
  },
  {
    check: 'closure-crd',
    why: 'the snapshot-controller platform app removed, and with it the VolumeSnapshot CRDs',
    mutate: (c) => c.remove('apps/platform/snapshot-controller'),
    at: inFile(CLASSES, 'apiVersion: snapshot.storage.k8s.io/v1'),
  },
  {
    check: 'closure-crd',
    why: "the secret store's operator no longer says it installs the ExternalSecret CRDs",
    mutate: (c) =>
      c.write(
        'apps/platform/external-secrets/application.yaml',
        c.read('apps/platform/external-secrets/application.yaml').replace(/ +gate\.homelab-gitops\/provides-crds: .*\n/, ''),
      ),
    at: 'apiVersion: external-secrets.io/v1',
  },
  {
    check: 'closure-priority-class',
    why: 'a pod asking for a PriorityClass nobody declares',
    mutate: (c) => c.edit('apps/media/unpackerr/deployment.yaml', 0, (d) => d.setIn(['spec', 'template', 'spec', 'priorityClassName'], 'homelab-critical')),
    at: 'priorityClassName: homelab-critical',
  },
  {
    check: 'closure-namespace',
    why: 'the cert-manager namespace renamed in namespaces.yaml, so nothing creates the one the app uses',
    mutate: swap('clusters/home/namespaces.yaml', '  name: cert-manager\n', '  name: certmanager\n'),
    at: 'namespace: cert-manager',
  },
  {
    check: 'argocd-app-health',
    why: 'no health for Applications, so the waves gate nothing',
    mutate: (c) => c.edit(ARGOCD_CM, 0, (d) => d.deleteIn(['data', 'resource.customizations.health.argoproj.io_Application'])),
    at: 'data:\n',
  },
  {
    check: 'argocd-app-health',
    why: 'resources tracked by the label charts set themselves',
    mutate: (c) => c.edit(ARGOCD_CM, 0, (d) => d.setIn(['data', 'application.resourceTrackingMethod'], 'label')),
    at: 'data:\n',
  },
  {
    check: 'argocd-render-tools',
    why: 'the gate on another kustomize than the deployed Argo CD',
    mutate: swap(TOOLS, 'kustomize: 5.8.1', 'kustomize: 5.7.0'),
    at: 'kustomize: 5.7.0',
  },
  {
    check: 'argocd-render-tools',
    why: 'Argo CD moved to another release without its tool versions',
    mutate: swap(KUSTOMIZATION, 'argo-cd/v3.5.1/', 'argo-cd/v3.4.4/'),
    at: 'argo-cd/v3.4.4/',
  },
];
