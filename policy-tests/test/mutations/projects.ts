/** Broken copies of the real repository for the checks of policy-tests/checks/projects.ts: each fails exactly its check, at its line. */
import type { Mutation } from '../support/mutation-runner.ts';
import { inProject, mediaInheritsSecurity, PORTFOLIO_APP, swap, PROJECTS, REPO_URL } from './edits.ts';

const lineOf = (text: string, needle: string, from = 0) => text.split('\n').findIndex((l, i) => i >= from && l.includes(needle)) + 1;

const PORTFOLIO_RBAC = 'portfolio-api/deploy/rbac.yaml';

export const projectsMutations: Mutation[] = [
  {
    check: 'argocd-project-sources',
    why: "a fork that renamed the repository everywhere but the monitoring project's sourceRepos",
    mutate: inProject('monitoring', REPO_URL, 'https://github.com/someone-else/homelab-gitops.git'),
    at: (c) => {
      const text = c.read(PROJECTS);
      return { file: PROJECTS, line: lineOf(text, 'sourceRepos:', lineOf(text, '  name: monitoring')) };
    },
  },
  {
    check: 'argocd-project-sources',
    why: "the platform project without cert-manager's chart repository",
    mutate: swap(PROJECTS, '    - https://charts.jetstack.io\n', ''),
    at: (c) => ({
      file: 'apps/platform/cert-manager/application.yaml',
      line: lineOf(c.read('apps/platform/cert-manager/application.yaml'), 'repoURL: https://charts.jetstack.io'),
    }),
  },
  {
    check: 'argocd-project-scope',
    why: 'a media app binding cluster-admin, which its project does not allow',
    mutate: (c) =>
      c.write(
        'apps/media/unpackerr/admin.yaml',
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: unpackerr-admin\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: cluster-admin\nsubjects:\n  - kind: ServiceAccount\n    name: etcd-backup\n    namespace: backups\n',
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
    check: 'argocd-project-scope',
    why: "the portfolio project blacklists ClusterRoleBindings (clusterResourceBlacklist, which the gate read as nothing): its status writer's binding is refused",
    mutate: inProject(
      'portfolio',
      '  namespaceResourceBlacklist:\n',
      '  clusterResourceBlacklist:\n    - group: rbac.authorization.k8s.io\n      kind: ClusterRoleBinding\n  namespaceResourceBlacklist:\n',
    ),
    at: (c) => ({ file: PORTFOLIO_RBAC, line: lineOf(c.read(PORTFOLIO_RBAC), 'kind: ClusterRoleBinding') }),
  },
  {
    check: 'argocd-project-scope',
    why: "the portfolio project whitelists ClusterRoles by name (Argo CD 3.5), and its status writer's is not among them",
    mutate: inProject('portfolio', '      kind: ClusterRole\n', '      kind: ClusterRole\n      name: "metrics-*"\n'),
    at: (c) => ({ file: PORTFOLIO_RBAC, line: lineOf(c.read(PORTFOLIO_RBAC), 'kind: ClusterRole') }),
  },
  {
    check: 'argocd-project-scope',
    why: 'the media project sets a namespaceResourceWhitelist of apps kinds only (a filepath.Match pattern): its Services are refused',
    mutate: inProject(
      'media',
      '  namespaceResourceBlacklist:\n',
      '  namespaceResourceWhitelist:\n    - group: apps\n      kind: "*"\n  namespaceResourceBlacklist:\n',
    ),
    at: (c) => ({ file: 'apps/media/sonarr/service.yaml', line: lineOf(c.read('apps/media/sonarr/service.yaml'), 'kind: Service') }),
  },
  {
    check: 'argocd-project-scope',
    why: "argocd-cm's globalProjects gives the media project the security project's lists, and with them its clusterResourceBlacklist of PersistentVolumes: the media share is refused",
    mutate: mediaInheritsSecurity('  clusterResourceBlacklist:\n    - group: ""\n      kind: PersistentVolume\n'),
    at: (c) => ({ file: 'apps/media/storage/share.yaml', line: lineOf(c.read('apps/media/storage/share.yaml'), 'kind: PersistentVolume') }),
  },
  {
    check: 'argocd-project-scope',
    why: 'the portfolio API deploys to a namespace its project does not list: Argo CD never syncs the Application (InvalidSpecError), and refuses each of its objects',
    mutate: inProject('portfolio', '      namespace: portfolio\n', '      namespace: portfolio-old\n'),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c.read(PORTFOLIO_APP), 'destination:') }),
  },
  {
    check: 'argocd-project-scope',
    why: 'the portfolio project permits only clusters scoped to it (permitOnlyProjectScopedClusters), and the local cluster is scoped to none: Argo CD never syncs the API',
    mutate: inProject('portfolio', '  destinations:\n', '  permitOnlyProjectScopedClusters: true\n  destinations:\n'),
    at: (c) => ({ file: PORTFOLIO_APP, line: lineOf(c.read(PORTFOLIO_APP), 'destination:') }),
  },
  {
    check: 'argocd-project-scope',
    why: "the media project blacklists a misspelt ResourceQuota, a kind the core group does not serve: the entry refuses nothing, and a media app may set its namespace's quota",
    mutate: inProject('media', '      kind: ResourceQuota\n', '      kind: ResuorceQuota\n'),
    at: (c) => {
      const text = c.read(PROJECTS);
      return { file: PROJECTS, line: lineOf(text, 'kind: ResuorceQuota', lineOf(text, '  name: media')) };
    },
  },
  {
    check: 'argocd-project-scope',
    why: 'the security project blacklists Namespaces among its namespaced kinds: Argo CD judges a Namespace by the cluster lists, so the entry refuses nothing',
    mutate: inProject('security', '      kind: LimitRange\n', '      kind: LimitRange\n    - group: ""\n      kind: Namespace\n'),
    at: (c) => {
      const text = c.read(PROJECTS);
      return { file: PROJECTS, line: lineOf(text, 'kind: Namespace', lineOf(text, 'namespaceResourceBlacklist:', lineOf(text, '  name: security'))) };
    },
  },
];
