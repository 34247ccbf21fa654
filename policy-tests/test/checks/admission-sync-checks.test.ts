/**
 * The admission layer on what a sync creates, as the API server admits it: a claim replaced, a namespace's quota, the
 * Service allocators, a MutatingAdmissionPolicy, and a sync impersonating an account; the mutations of the checks that
 * judge what a sync meets beyond one object. The API server's own validation of each object, and its mutations:
 * admission-checks.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyGateOptions, copyRepo, lineOf, onBrokenCopy, type RepoCopy } from '../support/helpers.ts';
import { inProject } from '../mutations/edits.ts';
import { allFindings, runGate } from '../../gate/gate.ts';
import { admissionSyncMutations, DEPLOYMENT_RULES, ownLimits } from '../mutations/admission.ts';
import { describeMutations } from '../support/mutation-runner.ts';

describeMutations('admission checks (admission/) on what a sync meets bite on a broken copy of the real repository', admissionSyncMutations);

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

describe("a namespace's quota the gate cannot count is not judged, and one with room passes", () => {
  let copy: RepoCopy;
  beforeAll(() => {
    copy = copyRepo();
    ownLimits(
      copy,
      [
        'apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: roomy\n  namespace: portfolio\nspec:\n  hard:\n    pods: "10"\n    requests.cpu: "2"\n    requests.memory: 4Gi\n    count/deployments.apps: "3"\n    requests.nvidia.com/gpu: "1"\n',
        'apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: best-effort\n  namespace: portfolio\nspec:\n  scopes: [BestEffort]\n  hard:\n    pods: "1"\n',
      ].join('---\n'),
    );
  });
  afterAll(() => copy?.dispose());

  it('fails nothing, and names the scoped quota and the count it does not keep', async () => {
    const result = await runGate(copyGateOptions(copy.root));
    expect(allFindings(result)).toEqual([]);
    expect(result.notJudged.filter((f) => f.check === 'namespace-limits').map((f) => f.message)).toEqual([
      'ResourceQuota roomy: requests.nvidia.com/gpu is not counted by the gate',
      'ResourceQuota best-effort: a quota with scopes counts only the pods they select, which the gate does not sort',
    ]);
  });
});

describe("a quota's object counts and an autoscaler's peak, counted as the API server counts them", () => {
  let copy: RepoCopy;
  beforeAll(() => {
    copy = copyRepo();
    ownLimits(
      copy,
      'apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: budget\n  namespace: portfolio\nspec:\n  hard:\n    count/cronjobs.batch: "0"\n    pods: "6"\n    secrets: "0"\n',
    );
    // The API scales to five: five pods, and its surge, past the six the quota holds.
    copy.write(
      'portfolio-api/deploy/autoscaler.yaml',
      'apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: portfolio-api\n  namespace: portfolio\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: portfolio-api}\n  minReplicas: 2\n  maxReplicas: 5\n  metrics:\n    - type: Resource\n      resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}\n',
    );
  });
  afterAll(() => copy?.dispose());

  it('fails the count of CronJobs, the pods at the peak and the Secrets an ExternalSecret makes, each at its hard amount', async () => {
    const result = await runGate(copyGateOptions(copy.root));
    expect(
      allFindings(result)
        .filter((f) => f.check === 'namespace-limits')
        .map((f) => f.message),
    ).toEqual([
      expect.stringMatching(
        /^ResourceQuota budget: namespace portfolio asks for count\/cronjobs\.batch=1 at once \(its objects\), over the hard count\/cronjobs\.batch=0/,
      ),
      expect.stringMatching(/^ResourceQuota budget: namespace portfolio asks for pods=8 at once/),
      // The Secret the API's ExternalSecret makes counts, though no manifest writes it.
      expect.stringMatching(/^ResourceQuota budget: namespace portfolio asks for secrets=1 at once \(its objects\), over the hard secrets=0/),
    ]);
  });
});

describe('an object a MutatingAdmissionPolicy of the repository matches is not judged as written', () => {
  let copy: RepoCopy;
  beforeAll(() => {
    copy = copyRepo();
    copy.write(
      'clusters/home/mutate.yaml',
      `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: pull-always
spec:
  matchConstraints:
${DEPLOYMENT_RULES}  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{labels: {"mutated": "yes"}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: pull-always
spec:
  policyName: pull-always
  matchResources:
    namespaceSelector:
      matchLabels: {kubernetes.io/metadata.name: portfolio}
`,
    );
  });
  afterAll(() => copy?.dispose());

  it("names each object it matches, and only those (the portfolio namespace's Deployments)", async () => {
    const result = await runGate(copyGateOptions(copy.root));
    expect(result.notJudged.filter((f) => f.check === 'admission-policy').map((f) => f.message)).toEqual([
      "Deployment portfolio-api: MutatingAdmissionPolicy 'pull-always' with binding 'pull-always' changes it on admission, and the gate judges it as written, not as mutated",
    ]);
  });
});

describe("the Service allocator's node ports follow the facts' node-port range (Talos' --service-node-port-range)", () => {
  const FACTS = 'clusters/home/cluster-facts.yaml';
  const SERVICE = 'portfolio-api/deploy/nodeport.yaml';
  const nodePortService = (port: number) =>
    `apiVersion: v1\nkind: Service\nmetadata:\n  name: api-nodeport\n  namespace: portfolio\nspec:\n  type: NodePort\n  selector: {app.kubernetes.io/name: portfolio-api}\n  ports:\n    - port: 80\n      targetPort: http\n      nodePort: ${port}\n`;
  let copy: RepoCopy;
  beforeAll(() => {
    copy = copyRepo();
    copy.write(FACTS, copy.read(FACTS).replace('    nodePorts: 30000-32767\n', '    nodePorts: 20000-22767\n'));
  });
  afterAll(() => copy?.dispose());
  const allocation = async (port: number) => {
    copy.write(SERVICE, nodePortService(port));
    return (await copy.gate()).filter((f) => f.check === 'service-allocation').map((f) => `${f.file}:${f.line} ${f.message}`);
  };

  it('refuses a node port in the default range that the cluster does not serve, at its line', async () => {
    expect(await allocation(30080)).toEqual([
      `${SERVICE}:${lineOf(copy, SERVICE, 'nodePort: 30080')} Service api-nodeport: spec.ports[0].nodePort: Invalid value: 30080: provided port is not in the valid range. The range of valid ports is 20000-22767 [initNodePorts]`,
    ]);
  });

  it("admits one inside the facts' range", async () => {
    expect(await allocation(21080)).toEqual([]);
  });
});

describe('two Services on one address: the one Argo CD creates second is refused, and two it applies at once are said to race', () => {
  const SERVICE_FILE = 'portfolio-api/deploy/service.yaml';
  const BAZARR = 'apps/media/bazarr/service.yaml';
  const SECOND = 'portfolio-api/deploy/service-b.yaml';
  let copy: RepoCopy;
  beforeAll(() => {
    copy = copyRepo();
  });
  afterAll(() => copy?.dispose());
  const refusals = async () => (await copy.gate()).filter((f) => f.check === 'service-allocation').map((f) => `${f.file} ${f.message}`);

  it("names the first as the holder where Argo CD's waves order them, with no race", async () => {
    copy.reset();
    copy.edit(SERVICE_FILE, 0, (d) => d.setIn(['spec', 'clusterIP'], '10.96.100.100'));
    copy.edit(BAZARR, 0, (d) => d.setIn(['spec', 'clusterIP'], '10.96.100.100'));
    const found = await refusals();
    expect(found).toEqual([
      expect.stringMatching(
        new RegExp(`^${BAZARR} Service bazarr: .*provided IP is already allocated \\(to Service portfolio/portfolio-api\\) \\[allocIPs\\]$`),
      ),
    ]);
  });

  it('says either may be refused where one app applies both in one wave', async () => {
    copy.reset();
    copy.edit(SERVICE_FILE, 0, (d) => d.setIn(['spec', 'clusterIP'], '10.96.100.100'));
    copy.write(
      SECOND,
      'apiVersion: v1\nkind: Service\nmetadata:\n  name: portfolio-api-b\n  namespace: portfolio\nspec:\n  clusterIP: 10.96.100.100\n  selector: {app.kubernetes.io/name: portfolio-api}\n  ports:\n    - port: 80\n      targetPort: http\n',
    );
    expect(await refusals()).toEqual([
      // Of the two, the one later in walk order is named (service-b.yaml comes first), and the race is said.
      expect.stringMatching(
        /^portfolio-api\/deploy\/service\.yaml Service portfolio-api: .*already allocated \(to Service portfolio\/portfolio-api-b\) \[allocIPs\]; Argo CD applies both at once \(portfolio-api-b too, in the same wave\), so either may be the one refused$/,
      ),
    ]);
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

describe('a namespace that pins Pod Security to an older policy version', () => {
  it("has its pods judged with that version's controls, and says the version it judged at", async () => {
    const { failed, notJudged } = await onBrokenCopy('pod-security', (copy) =>
      copy.write(
        'clusters/home/namespaces.yaml',
        copy
          .read('clusters/home/namespaces.yaml')
          .replace(
            '    pod-security.kubernetes.io/enforce: privileged\n',
            '    pod-security.kubernetes.io/enforce: baseline\n    pod-security.kubernetes.io/enforce-version: v1.24\n',
          ),
      ),
    );
    expect(notJudged).toEqual([]);
    expect(failed.filter((f) => f.file.startsWith('apps/media/gluetun/'))).toContainEqual(
      expect.objectContaining({
        message: expect.stringMatching(
          /namespace media-vpn: violates PodSecurity "baseline:v1\.24" \(enforce\): non-default capabilities: container gluetun must not include NET_ADMIN/,
        ),
      }),
    );
  });
});

describe("the cluster's Pod Security configuration, as Talos' admissionControl entry writes it", () => {
  const FACTS = 'clusters/home/cluster-facts.yaml';
  const NAMESPACES = 'clusters/home/namespaces.yaml';
  const GLUETUN = 'apps/media/gluetun/deployment.yaml';
  /** media-vpn at the cluster's baseline, where gluetun's NET_ADMIN is refused, and the facts' podSecurity as given. */
  const configured = (podSecurity: string, edit: (copy: RepoCopy) => void = () => {}) =>
    onBrokenCopy('pod-security', (copy) => {
      copy.write(NAMESPACES, copy.read(NAMESPACES).replace('    pod-security.kubernetes.io/enforce: privileged\n', ''));
      const facts = copy.read(FACTS);
      const at = facts.indexOf('    exemptNamespaces: [kube-system]\n');
      copy.write(FACTS, `${facts.slice(0, at)}${podSecurity}${facts.slice(at + '    exemptNamespaces: [kube-system]\n'.length)}`);
      edit(copy);
    });
  const gluetun = (failed: { file: string }[]) => failed.filter((f) => f.file === GLUETUN).length;

  it('exempts the namespaces and runtime classes its exemptions name', async () => {
    expect(gluetun((await configured('    exemptions: {namespaces: [kube-system]}\n')).failed)).toBeGreaterThan(0);
    expect(gluetun((await configured('    exemptions: {namespaces: [kube-system, media-vpn]}\n')).failed)).toBe(0);
    const kata = (copy: RepoCopy) =>
      copy.write(
        GLUETUN,
        copy.read(GLUETUN).replace('      automountServiceAccountToken: false\n', '      automountServiceAccountToken: false\n      runtimeClassName: kata\n'),
      );
    expect(gluetun((await configured('    exemptions: {namespaces: [kube-system], runtimeClasses: [kata]}\n', kata)).failed)).toBe(0);
    expect(gluetun((await configured('    exemptions: {namespaces: [kube-system], runtimeClasses: [gvisor]}\n', kata)).failed)).toBeGreaterThan(0);
  });

  it('holds a pod of an exempt runtime class, which Pod Security does not guard, to naming the privileges it holds', async () => {
    const SONARR = 'apps/media/sonarr/deployment.yaml';
    const onHost = (runtimeClass: string) =>
      onBrokenCopy('workload-privileges-named', (copy) => {
        copy.write(
          FACTS,
          copy.read(FACTS).replace('    exemptNamespaces: [kube-system]\n', '    exemptions: {namespaces: [kube-system], runtimeClasses: [kata]}\n'),
        );
        const deployment = copy.read(SONARR);
        copy.write(
          SONARR,
          deployment.replace(
            '      automountServiceAccountToken: false\n',
            `      automountServiceAccountToken: false\n      runtimeClassName: ${runtimeClass}\n      hostNetwork: true\n`,
          ),
        );
      });
    expect((await onHost('kata')).failed.map((f) => f.message)).toEqual([expect.stringMatching(/^Deployment sonarr holds pod: hostNetwork/)]);
    // Under a runtime class the cluster does not exempt, Pod Security refuses it (pod-security), and nothing is asked here.
    expect((await onHost('gvisor')).failed).toEqual([]);
  });

  it('says not judged what exempt users might create, and judges pods at the version its defaults pin', async () => {
    const byUser = await configured('    exemptions: {namespaces: [kube-system], usernames: [system:serviceaccount:kube-system:replicaset-controller]}\n');
    expect(gluetun(byUser.failed)).toBe(0);
    expect(byUser.notJudged).toContainEqual(
      expect.stringMatching(
        /^Deployment gluetun: violates PodSecurity "baseline:latest" in namespace media-vpn \(capabilities_baseline\), unless the user that creates its pods is one the cluster exempts/,
      ),
    );
    const pinned = await onBrokenCopy('pod-security', (copy) =>
      copy.write(FACTS, copy.read(FACTS).replace('defaults: {enforce: baseline,', 'defaults: {enforce: restricted, enforce-version: v1.22,')),
    );
    // runAsUser is no control of v1.22: the messages name the version, and no finding is runAsUser's.
    expect(pinned.failed.length).toBeGreaterThan(0);
    expect(pinned.failed.every((f) => f.message.includes('"restricted:v1.22"') && !f.message.includes('[runAsUser]'))).toBe(true);
  });
});
