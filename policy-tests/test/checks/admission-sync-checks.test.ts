/**
 * The admission layer on what a sync creates, as the API server admits it: a namespace's quota, the Service
 * allocators, a MutatingAdmissionPolicy, Pod Security's policy versions, and the webhooks and plugins each object
 * meets; the mutations of the checks that judge them. What Argo CD refuses at sync, the account it impersonates and
 * what a program may ask the API server: sync-authorized-checks.test.ts. The API server's validation of each
 * object: admission-checks.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyGateOptions, copyRepo, lineOf, type RepoCopy } from '../support/helpers.ts';
import { allFindings, runGate } from '../../gate/gate.ts';
import { admissionSyncMutations, DEPLOYMENT_RULES, ownLimits } from '../mutations/admission.ts';
import { describeMutations } from '../support/mutation-runner.ts';

describeMutations('admission checks (admission/) on what a sync meets bite on a broken copy of the real repository', admissionSyncMutations);

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
