/**
 * Broken copies of the real repository for policy-tests/checks/argocd/repo-server.ts: each plants what Argo CD's
 * repo-server would apply or merge and the gate must not take as written, and exactly argocd-applied-files fails on
 * the planted file.
 */
import type { Mutation } from '../support/mutation-runner.ts';
import { lineOf } from '../support/helpers.ts';
import { applicationSet } from '../support/application-set.ts';

const BACKUPS_APP = 'apps/platform/backups/application.yaml';

const CLUSTER_ADMIN_BINDING = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: all-yours
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
  - kind: ServiceAccount
    name: etcd-backup
    namespace: backups
`;

const ARGOCD_CM = 'apps/platform/argocd/patches/argocd-cm.yaml';

export const argocdRepoServerMutations: Mutation[] = [
  {
    check: 'argocd-applied-files',
    why: 'an ApplicationSet next to the cluster facts whose pull request generator makes an Application for every open pull request of a GitHub repository: a generator the gate does not evaluate (it asks GitHub), so it cannot tell what they sync',
    mutate: (c) =>
      c.write(
        'clusters/home/extras.yaml',
        applicationSet([], ['- pullRequest:', '    github:', '      owner: homelab-operator', '      repo: homelab-gitops'], {
          name: 'extra-{{number}}',
          path: 'apps/platform/cert-manager',
          project: 'platform',
          namespace: 'cert-manager',
        }),
      ),
    at: (c) => ({ file: 'clusters/home/extras.yaml', line: lineOf(c, 'clusters/home/extras.yaml', 'generators:') }),
  },
  {
    check: 'argocd-applied-files',
    why: "an ApplicationSet next to the cluster facts whose Application names a project Argo CD's namespace does not hold: the controller refuses it and makes nothing of it (validateGeneratedApplications)",
    mutate: (c) =>
      c.write(
        'clusters/home/extras.yaml',
        applicationSet([], ['- list:', '    elements:', '      - app: cert'], {
          name: 'extra-{{app}}',
          path: 'apps/platform/cert-manager',
          project: 'nowhere',
          namespace: 'cert-manager',
        }),
      ),
    at: (c) => ({ file: 'clusters/home/extras.yaml', line: lineOf(c, 'clusters/home/extras.yaml', 'generators:') }),
  },
  {
    check: 'argocd-applied-files',
    why: "argocd-cmd-params-cm lowers the repo-server's combined manifest size to 10Ki, which the portfolio API's folder (13 KB) passes: Argo CD fails the source",
    mutate: (c) =>
      c.write(
        'clusters/home/argocd-cmd-params.yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cmd-params-cm\n  namespace: argocd\ndata:\n  reposerver.max.combined.directory.manifests.size: 10Ki\n',
      ),
    at: (c) => ({ file: 'portfolio-api/deploy/application.yaml', line: lineOf(c, 'portfolio-api/deploy/application.yaml', 'path: portfolio-api/deploy') }),
  },
  {
    check: 'argocd-applied-files',
    why: "a dot-file ClusterRoleBinding to cluster-admin next to the cluster facts, which the root app's include {clusters/home/*.yaml,...} matches",
    mutate: (c) => c.write('clusters/home/.cluster-facts-extra.yaml', CLUSTER_ADMIN_BINDING),
    at: () => ({ file: 'clusters/home/.cluster-facts-extra.yaml', line: 1 }),
  },
  {
    check: 'argocd-applied-files',
    why: "a hidden Application under a dot folder (apps/.tools/application.yaml: gobwas' * crosses /), with a manifest of its own",
    mutate: (c) => {
      const app = c
        .read('apps/platform/backups/application.yaml')
        .replace('name: backups\n', 'name: tools\n')
        .replace('path: apps/platform/backups', 'path: apps/.tools');
      c.write('apps/.tools/application.yaml', app);
      c.write('apps/.tools/config.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tools\n  namespace: backups\ndata:\n  mode: quiet\n');
    },
    at: () => ({ file: 'apps/.tools/application.yaml', line: 1 }),
  },
  {
    check: 'argocd-applied-files',
    why: "an .argocd-source-<app>.yaml in the VPN app folder that names one image where Argo CD's ApplicationSource takes a list: Go's decoder fails the source, and nothing of the app is applied",
    mutate: (c) => c.write('apps/media/gluetun/.argocd-source-media-gluetun.yaml', 'kustomize:\n  images: docker.io/qmcgaw/gluetun:v3.41.0\n'),
    at: () => ({ file: 'apps/media/gluetun/.argocd-source-media-gluetun.yaml', line: 2 }),
  },
  {
    check: 'argocd-applied-files',
    why: "a .gitmodules that puts another repository at apps/media/extras: Argo CD's checkout fetches it (git submodule update), and the root app applies its application.yaml, which the gate never reads",
    mutate: (c) => c.write('.gitmodules', '[submodule "extras"]\n\tpath = apps/media/extras\n\turl = https://github.com/attacker/extras.git\n'),
    at: () => ({ file: '.gitmodules', line: 2 }),
  },
  {
    check: 'argocd-applied-files',
    why: "a symlink to /etc/hostname in docs/, which no Application reads: Argo CD's repo-server checks every link of the checkout first and fails every source of the repository",
    mutate: (c) => c.link('docs/hostname.md', '/etc/hostname'),
    at: () => ({ file: 'docs/hostname.md', line: 1 }),
  },
  {
    check: 'argocd-applied-files',
    why: "argocd-cm turns kustomize off: Argo CD would apply every kustomization's folder (the media apps') as plain YAML, where the gate renders it with kustomize",
    mutate: (c) => c.write(ARGOCD_CM, c.read(ARGOCD_CM).replace(/^data:\n/m, 'data:\n  kustomize.enable: "false"\n')),
    at: (c) => ({ file: ARGOCD_CM, line: lineOf(c, ARGOCD_CM, 'kustomize.enable') }),
  },
  {
    check: 'argocd-applied-files',
    why: "a hidden .jsonnet file in the backups app that binds 'cluster-' + 'admin': a directory source evaluates every *.jsonnet, dot-named or not",
    mutate: (c) =>
      c.write(
        'apps/platform/backups/.binding.jsonnet',
        "{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'backup-all' },\n  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-' + 'admin' },\n  subjects: [{ kind: 'ServiceAccount', name: 'etcd-backup', namespace: 'backups' }] }\n",
      ),
    at: () => ({ file: 'apps/platform/backups/.binding.jsonnet', line: 1 }),
  },
  {
    check: 'argocd-applied-files',
    why: 'the backups app names a plugin: Argo CD would hand its folder to a sidecar the gate cannot run',
    mutate: (c) =>
      c.edit(BACKUPS_APP, 0, (d) => {
        d.deleteIn(['spec', 'source', 'directory']);
        d.setIn(['spec', 'source', 'plugin'], { name: 'envsubst' });
      }),
    at: 'plugin:',
  },
  {
    check: 'argocd-applied-files',
    why: 'the backups app names two tools (directory and kustomize): Argo CD refuses the source',
    mutate: (c) => c.edit(BACKUPS_APP, 0, (d) => d.setIn(['spec', 'source', 'kustomize'], { namePrefix: 'x-' })),
    at: (c) => ({ file: BACKUPS_APP, line: lineOf(c, BACKUPS_APP, '  source:') }),
  },
  {
    check: 'argocd-applied-files',
    why: 'the backups app takes a source hydrator: Argo CD syncs the branch it writes, not the folder the gate reads',
    mutate: (c) =>
      c.edit(BACKUPS_APP, 0, (d) =>
        d.setIn(
          ['spec', 'sourceHydrator'],
          d.createNode({
            drySource: { repoURL: 'https://github.com/homelab-operator/homelab-gitops.git', targetRevision: 'main', path: 'apps/platform/backups' },
            syncSource: { targetBranch: 'environments/home', path: 'backups' },
          }),
        ),
      ),
    at: 'sourceHydrator:',
  },
  {
    check: 'argocd-applied-files',
    why: 'the backups app adds an empty sources list, which Argo CD passes over for its source: the gate still reads that source, and its dot-file',
    mutate: (c) => {
      c.edit(BACKUPS_APP, 0, (d) => d.setIn(['spec', 'sources'], d.createNode([])));
      c.write('apps/platform/backups/.extra.yaml', CLUSTER_ADMIN_BINDING.replace('namespace: media', 'namespace: backups'));
    },
    at: () => ({ file: 'apps/platform/backups/.extra.yaml', line: 1 }),
  },
];
