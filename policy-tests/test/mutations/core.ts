/** Broken copies of the real repository for the Argo CD, repository, workload and exemption checks. */
import { isSeq } from 'yaml';
import { lineOf } from '../support/helpers.ts';
import type { Mutation } from '../support/mutation-runner.ts';

export const DEPLOYMENT = 'portfolio-api/deploy/deployment.yaml';
export const PORTFOLIO_APP = 'portfolio-api/deploy/application.yaml';
const ROOT_APP = 'clusters/home/root.yaml';
export const CONTAINER = ['spec', 'template', 'spec', 'containers', 0];
/**
 * A workload in the media namespace, whose Pod Security enforce level is
 * privileged: the hygiene checks that Pod Security would also refuse at the
 * portfolio's restricted level are proven here, one check at a time.
 */
export const MEDIA_DEPLOYMENT = 'apps/media/unpackerr/deployment.yaml';
/** The one workload in a namespace whose Pod Security level admits hostPath (media-vpn, privileged): the hostPath check's subject. */
export const PRIVILEGED_NS_DEPLOYMENT = 'apps/media/gluetun/deployment.yaml';
const REPO_URL = 'https://github.com/homelab-operator/homelab-gitops.git';

export const coreMutations: Mutation[] = [
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
    check: 'argocd-track-main',
    why: 'the app tracks HEAD instead of main',
    mutate: (c) => c.edit(PORTFOLIO_APP, 0, (d) => d.setIn(['spec', 'source', 'targetRevision'], 'HEAD')),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, 'targetRevision: HEAD') }),
  },
  {
    check: 'argocd-chart-pinned',
    why: 'a chart source asks for a version range',
    mutate: (c) =>
      c.edit(PORTFOLIO_APP, 0, (d) => {
        const source = d.getIn(['spec', 'source']);
        d.deleteIn(['spec', 'source']);
        d.setIn(['spec', 'sources'], d.createNode([source, { repoURL: 'https://charts.example.org', chart: 'redis', targetRevision: '^19.0.0' }]));
      }),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, '^19.0.0') }),
  },
  {
    check: 'argocd-sync-policy',
    why: 'selfHeal is off',
    mutate: (c) => c.edit(PORTFOLIO_APP, 0, (d) => d.setIn(['spec', 'syncPolicy', 'automated', 'selfHeal'], false)),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c, PORTFOLIO_APP, 'selfHeal: false') }),
  },
  {
    check: 'argocd-destination-namespace',
    why: 'the destination has no namespace',
    mutate: (c) => c.edit(PORTFOLIO_APP, 0, (d) => d.deleteIn(['spec', 'destination', 'namespace'])),
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
    check: 'argocd-root-discovery',
    why: 'the root app stops including application.yaml files',
    mutate: (c) => c.edit(ROOT_APP, 0, (d) => d.setIn(['spec', 'source', 'directory', 'include'], '{clusters/home/*.yaml}')),
    at: () => ({ file: PORTFOLIO_APP, line: 1 }),
  },
  {
    check: 'argocd-root-discovery',
    why: 'a Helm values file sits in a directory source that would apply it',
    mutate: (c) => c.write('portfolio-api/deploy/values.yaml', 'replicaCount: 2\n'),
    at: () => ({ file: 'portfolio-api/deploy/values.yaml', line: 1 }),
  },
  {
    check: 'duplicate-resource',
    why: 'the Service is declared twice',
    mutate: (c) => c.write('portfolio-api/deploy/service-copy.yaml', c.read('portfolio-api/deploy/service.yaml').split('---')[0]!),
    at: (c) => ({ file: 'portfolio-api/deploy/service-copy.yaml', line: lineOf(c, 'portfolio-api/deploy/service-copy.yaml', '  name: portfolio-api') }),
  },
  {
    check: 'cluster-facts',
    why: 'the node count is not a number',
    mutate: (c) => c.edit('clusters/home/cluster-facts.yaml', 0, (d) => d.setIn(['data', 'nodeCount'], 'six')),
    at: (c) => ({ file: 'clusters/home/cluster-facts.yaml', line: lineOf(c, 'clusters/home/cluster-facts.yaml', '  nodeCount:') }),
  },
  {
    check: 'cluster-facts',
    why: 'the cluster runs a Kubernetes minor the bundled schemas do not describe',
    mutate: (c) => {
      c.edit('clusters/home/cluster-facts.yaml', 0, (d) => d.setIn(['data', 'kubernetesVersion'], '1.31.2'));
      // The kubelet's cAdvisor entry is pinned to the cluster's minor; re-pinned here, so only the facts are wrong.
      c.edit('monitoring/metrics-catalog/cadvisor-v0.56.2.yaml', 0, (d) => d.setIn(['pin', 'contains'], 'kubernetesVersion: "1.31.'));
    },
    at: (c) => ({ file: 'clusters/home/cluster-facts.yaml', line: lineOf(c, 'clusters/home/cluster-facts.yaml', '  kubernetesVersion:') }),
  },
  {
    check: 'workload-image-pinned',
    why: 'the image uses the latest tag',
    mutate: (c) => c.edit(DEPLOYMENT, 0, (d) => d.setIn([...CONTAINER, 'image'], 'ghcr.io/homelab-operator/portfolio-api:latest')),
    at: (c) => ({ file: DEPLOYMENT, line: lineOf(c, DEPLOYMENT, 'image:') }),
  },
  {
    check: 'workload-image-pinned',
    why: 'the image has no tag at all (a registry port is not a tag)',
    mutate: (c) => c.edit(DEPLOYMENT, 0, (d) => d.setIn([...CONTAINER, 'image'], 'registry.local:5000/portfolio-api')),
    at: (c) => ({ file: DEPLOYMENT, line: lineOf(c, DEPLOYMENT, 'image:') }),
  },
  {
    check: 'workload-memory',
    why: 'the memory limit is gone',
    mutate: (c) => c.edit(DEPLOYMENT, 0, (d) => d.deleteIn([...CONTAINER, 'resources', 'limits'])),
    at: (c) => ({ file: DEPLOYMENT, line: lineOf(c, DEPLOYMENT, 'resources:') }),
  },
  {
    check: 'workload-probes',
    why: 'the HTTP container lost its readiness probe',
    mutate: (c) => c.edit(DEPLOYMENT, 0, (d) => d.deleteIn([...CONTAINER, 'readinessProbe'])),
    at: (c) => ({ file: DEPLOYMENT, line: lineOf(c, DEPLOYMENT, '- name: api') }),
  },
  {
    check: 'workload-privilege',
    why: 'allowPrivilegeEscalation is no longer false',
    mutate: (c) => c.edit(MEDIA_DEPLOYMENT, 0, (d) => d.deleteIn([...CONTAINER, 'securityContext', 'allowPrivilegeEscalation'])),
    at: (c) => ({ file: MEDIA_DEPLOYMENT, line: lineOf(c, MEDIA_DEPLOYMENT, 'capabilities:') - 1 }),
  },
  {
    check: 'workload-privilege',
    why: 'the pod no longer insists on a non-root user',
    mutate: (c) => c.edit(MEDIA_DEPLOYMENT, 0, (d) => d.deleteIn(['spec', 'template', 'spec', 'securityContext', 'runAsNonRoot'])),
    at: (c) => ({ file: MEDIA_DEPLOYMENT, line: lineOf(c, MEDIA_DEPLOYMENT, 'allowPrivilegeEscalation') - 1 }),
  },
  {
    check: 'no-plain-secret',
    why: 'a Secret with data is committed',
    mutate: (c) =>
      c.write(
        'portfolio-api/deploy/secret.yaml',
        'apiVersion: v1\nkind: Secret\nmetadata:\n  name: leaked\n  namespace: portfolio\nstringData:\n  API_KEY: hunter2\n',
      ),
    at: () => ({ file: 'portfolio-api/deploy/secret.yaml', line: 6 }),
  },
  {
    check: 'workload-hostpath',
    why: 'a hostPath volume appears',
    mutate: (c) =>
      c.edit(PRIVILEGED_NS_DEPLOYMENT, 0, (d) => {
        const volumes = d.getIn(['spec', 'template', 'spec', 'volumes']);
        if (isSeq(volumes)) volumes.add(d.createNode({ name: 'host', hostPath: { path: '/var/run' } }));
      }),
    at: (c) => ({ file: PRIVILEGED_NS_DEPLOYMENT, line: lineOf(c, PRIVILEGED_NS_DEPLOYMENT, 'hostPath:') }),
  },
  {
    check: 'exemption-valid',
    why: 'an exemption suppresses nothing (stale)',
    mutate: (c) =>
      c.edit(DEPLOYMENT, 0, (d) => d.setIn(['metadata', 'annotations'], d.createNode({ 'gate.homelab-gitops/exempt-workload-hostpath': 'no longer needed' }))),
    at: (c) => ({ file: DEPLOYMENT, line: lineOf(c, DEPLOYMENT, 'exempt-workload-hostpath') }),
  },
  {
    check: 'exemption-valid',
    why: 'an exemption names a check that cannot be exempted',
    mutate: (c) =>
      c.edit(DEPLOYMENT, 0, (d) => d.setIn(['metadata', 'annotations'], d.createNode({ 'gate.homelab-gitops/exempt-workload-memory': 'because' }))),
    at: (c) => ({ file: DEPLOYMENT, line: lineOf(c, DEPLOYMENT, 'exempt-workload-memory') }),
  },
];
