/**
 * What Argo CD refuses at sync, the account a sync impersonates, and what a program may ask the API server: the
 * mutations of argocd-will-sync, argocd-sync-authorized and program-api-authorized on a broken copy of the real
 * repository; a claim replaced, and a sync impersonating an account the repository cannot fully see. The
 * admission layer's plugins and webhooks: admission-sync-checks.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyRepo, onBrokenCopy, type RepoCopy } from '../support/helpers.ts';
import { inProject } from '../mutations/edits.ts';
import { authorizedSyncMutations } from '../mutations/admission.ts';
import { describeMutations } from '../support/mutation-runner.ts';

describeMutations("Argo CD's sync and the programs' requests (admission/) bite on a broken copy of the real repository", authorizedSyncMutations);

describe('a claim under Replace=true: refused by every replace, unless Force=true makes the sync delete and create it', () => {
  let copy: RepoCopy;
  beforeAll(() => {
    copy = copyRepo();
  });
  afterAll(() => copy?.dispose());
  const PVC = 'apps/media/sonarr/pvc.yaml';
  const judged = async (options: string) => {
    copy.edit(PVC, 0, (d) => d.setIn(['metadata', 'annotations', 'argocd.argoproj.io/sync-options'], options));
    return (await copy.gate()).filter((f) => f.file === PVC).map((f) => f.check);
  };

  it('fails argocd-will-sync alone without Force=true, and with it only argocd-prune, for what the recreation loses', async () => {
    expect(await judged('Replace=true')).toEqual(['argocd-will-sync']);
    expect(await judged('Replace=true,Force=true')).toEqual(['argocd-prune']);
  });
});

describe('a sync impersonating an account the repository cannot fully see', () => {
  const ARGOCD_CM_PATCH = 'apps/platform/argocd/patches/argocd-cm.yaml';
  const impersonating = (account: string, binding: string) => (copy: RepoCopy) => {
    copy.write(
      ARGOCD_CM_PATCH,
      `${copy.read(ARGOCD_CM_PATCH)}  application.sync.impersonation.enabled: "true"\n  application.sync.impersonation.enforced: "false"\n`,
    );
    inProject(
      'portfolio',
      '  destinations:\n',
      `  destinationServiceAccounts:\n    - server: https://kubernetes.default.svc\n      namespace: "*"\n      defaultServiceAccount: "${account}"\n  destinations:\n`,
    )(copy);
    copy.write('clusters/home/portfolio-sync.yaml', binding);
  };
  /** A ClusterRoleBinding of the account to `role`: it grants everywhere what the role grants. */
  const bindingTo = (role: string) =>
    `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: portfolio-sync\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: ${role}\nsubjects:\n  - kind: ServiceAccount\n    name: portfolio-sync\n    namespace: portfolio\n`;
  const judged = async (breakIt: (copy: RepoCopy) => void) => {
    const { failed, notJudged } = await onBrokenCopy('argocd-sync-authorized', breakIt);
    return { failed: failed.map((f) => f.message), notJudged };
  };

  it("says not judged where a role bound to it is Kubernetes' own, which the repository does not hold", async () => {
    // The ClusterRole edit grants what the API server's bootstrap policy and its aggregated roles say; the gate holds none of it.
    const { failed, notJudged } = await judged(impersonating('portfolio-sync', bindingTo('edit')));
    expect(failed).toEqual([]);
    expect(notJudged).toEqual([
      expect.stringMatching(
        /^Application portfolio-api syncs as system:serviceaccount:portfolio:portfolio-sync: a role bound to it is not declared in the repository \(Kubernetes' own, or made outside git\), so whether it may write \w+ [\w-]+ is not known$/,
      ),
    ]);
  });

  /** A ClusterRole of these verbs on every resource, bound to the account. */
  const roleOf = (verbs: readonly string[]) =>
    `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: portfolio-sync\nrules:\n  - apiGroups: ["*"]\n    resources: ["*"]\n    verbs: [${verbs.join(', ')}]\n---\n${bindingTo('portfolio-sync')}`;

  it('asks of the account what a sync also does: delete what the automated sync prunes, update and delete its hooks', async () => {
    const applyOnly = await judged(impersonating('portfolio-sync', roleOf(['get', 'create', 'patch'])));
    expect(applyOnly.failed.length).toBeGreaterThan(0);
    expect(applyOnly.failed).toContain(
      'Argo CD syncs Application portfolio-api as system:serviceaccount:portfolio:portfolio-sync (AppProject portfolio\'s destinationServiceAccounts), and Deployment portfolio-api is forbidden: User "system:serviceaccount:portfolio:portfolio-sync" cannot delete resource "deployments" in API group "apps" in the namespace "portfolio" (delete to prune it once the repository no longer declares it (the automated sync prunes)): the sync fails',
    );
    const HOOK = 'portfolio-api/deploy/pre-sync.yaml';
    const { failed } = await judged((copy) => {
      impersonating('portfolio-sync', roleOf(['get', 'create', 'patch', 'delete']))(copy);
      copy.write(
        HOOK,
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pre-sync\n  namespace: portfolio\n  annotations:\n    argocd.argoproj.io/hook: PreSync\ndata: {}\n',
      );
    });
    expect(failed).toEqual([
      'Argo CD syncs Application portfolio-api as system:serviceaccount:portfolio:portfolio-sync (AppProject portfolio\'s destinationServiceAccounts), and ConfigMap pre-sync is forbidden: User "system:serviceaccount:portfolio:portfolio-sync" cannot update resource "configmaps" in API group "" in the namespace "portfolio" (update to take its hook finalizer off once it has run): the sync fails',
    ]);
  });

  it('asks of the account what deleting the Application does: delete what its resources finalizer cascades to, create and remove its delete hooks', async () => {
    const APP = 'portfolio-api/deploy/application.yaml';
    const { failed } = await judged((copy) => {
      impersonating('portfolio-sync', roleOf(['get', 'create', 'patch', 'update']))(copy);
      // No automated prune: only the Application's deletion deletes the Deployment.
      copy.write(APP, copy.read(APP).replace('      prune: true\n', ''));
      copy.write(
        'portfolio-api/deploy/post-delete.yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: post-delete\n  namespace: portfolio\n  annotations:\n    argocd.argoproj.io/hook: PostDelete\ndata: {}\n',
      );
    });
    expect(failed).toContain(
      'Argo CD syncs Application portfolio-api as system:serviceaccount:portfolio:portfolio-sync (AppProject portfolio\'s destinationServiceAccounts), and Deployment portfolio-api is forbidden: User "system:serviceaccount:portfolio:portfolio-sync" cannot delete resource "deployments" in API group "apps" in the namespace "portfolio" (delete to delete it with Application portfolio-api (its resources finalizer)): deleting Application portfolio-api fails',
    );
    expect(failed).toContain(
      'Argo CD syncs Application portfolio-api as system:serviceaccount:portfolio:portfolio-sync (AppProject portfolio\'s destinationServiceAccounts), and ConfigMap post-delete is forbidden: User "system:serviceaccount:portfolio:portfolio-sync" cannot delete resource "configmaps" in API group "" in the namespace "portfolio" (delete to remove it once it has run): deleting Application portfolio-api fails',
    );
  });

  it('asks of the account the namespace CreateNamespace=true creates, at the cluster scope', async () => {
    const role = `apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: portfolio-sync\n  namespace: portfolio\nrules:\n  - apiGroups: ["*"]\n    resources: ["*"]\n    verbs: ["*"]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: portfolio-sync\n  namespace: portfolio\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: portfolio-sync\nsubjects:\n  - kind: ServiceAccount\n    name: portfolio-sync\n    namespace: portfolio\n`;
    const namespaceLine =
      /and Namespace portfolio is forbidden: .*cannot get, create, patch resource "namespaces" in API group "" at the cluster scope \(get, create, patch to create it \(CreateNamespace=true\)\): the sync fails$/;
    const without = await judged(impersonating('portfolio-sync', role));
    expect(without.failed.filter((m) => namespaceLine.test(m))).toEqual([]);
    const { failed } = await judged((copy) => {
      impersonating('portfolio-sync', role)(copy);
      copy.edit('portfolio-api/deploy/application.yaml', 0, (d) => d.setIn(['spec', 'syncPolicy', 'syncOptions'], d.createNode(['CreateNamespace=true'])));
    });
    expect(
      failed.filter((m) => namespaceLine.test(m)),
      failed.join('\n'),
    ).toHaveLength(1);
  });

  it("passes an account whose role grants every verb the sync asks for, and fails one Argo CD cannot name, in Argo CD's words", async () => {
    expect(await judged(impersonating('portfolio-sync', bindingTo('cluster-admin')))).toEqual({ failed: [], notJudged: [] });
    const { failed } = await judged(impersonating('team/sync', bindingTo('cluster-admin')));
    expect(failed).toEqual([
      "Application portfolio-api: failed to derive service account to impersonate: default service account contains invalid chars 'team/sync' (AppProject portfolio's destinationServiceAccounts): the sync fails",
    ]);
  });
});
