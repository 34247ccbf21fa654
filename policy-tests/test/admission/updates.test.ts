/**
 * The API server's update validation (k8s.io/kubernetes v1.36 Validate<Kind>Update and the PersistentVolumeClaimResize
 * plugin), case by case after the upstream tests' cases (TestValidateStatefulSetUpdate, TestValidateJobUpdate,
 * TestValidatePersistentVolumeClaimUpdate, TestValidatePersistentVolumeSourceUpdate, TestValidateServiceUpdate,
 * TestValidateSecretUpdate, TestValidateStorageClassUpdate, ...): what an update may change, and what it may not.
 */
import { describe, expect, it } from 'vitest';
import { UPDATE_JUDGED_KINDS, updateViolations, type UpdateCluster } from '../../admission/validation/updates.ts';
import { semanticEqual } from '../../admission/validation/semantic-equal.ts';
import { onRefusedUpdate, pruneOutcome, syncCommand, syncMethodOf } from '../../model/controller/sync-method.ts';

type Obj = Record<string, any>;
const NO_CLASSES: UpdateCluster = { storageClass: () => undefined, defaultStorageClass: undefined };
const judge = (old: Obj, next: Obj, cluster = NO_CLASSES) =>
  updateViolations(old, next, cluster).map((v) => `${v.notJudged ? 'not judged ' : ''}${v.path.join('.')}: ${v.message}`);
/** `o` with `edit` applied to a deep copy. */
const edited = (o: Obj, edit: (c: Obj) => void): Obj => {
  const copy = structuredClone(o);
  edit(copy);
  return copy;
};

const sts: Obj = {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'db' },
  spec: {
    serviceName: 'db',
    replicas: 1,
    selector: { matchLabels: { app: 'db' } },
    template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'db:1' }] } },
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
  },
};

describe('a StatefulSet update (ValidateStatefulSetUpdate)', () => {
  it.each<[string, (s: Obj) => void]>([
    ['replicas', (s) => (s.spec.replicas = 3)],
    ['the template', (s) => (s.spec.template.spec.containers[0].image = 'db:2')],
    ['the update strategy', (s) => (s.spec.updateStrategy = { type: 'OnDelete' })],
    ['minReadySeconds', (s) => (s.spec.minReadySeconds = 10)],
    ['the claim retention policy', (s) => (s.spec.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Delete' })],
    ['revisionHistoryLimit', (s) => (s.spec.revisionHistoryLimit = 3)],
    ['ordinals', (s) => (s.spec.ordinals = { start: 1 })],
    ['a default spelled out', (s) => Object.assign(s.spec, { podManagementPolicy: 'OrderedReady' })],
    ['a claim template as stored', (s) => Object.assign(s.spec.volumeClaimTemplates[0], { apiVersion: 'v1', kind: 'PersistentVolumeClaim', status: {} })],
    ['a size spelled otherwise', (s) => (s.spec.volumeClaimTemplates[0].spec.resources.requests.storage = '1024Mi')],
  ])('may change %s', (_what, edit) => {
    expect(judge(sts, edited(sts, edit))).toEqual([]);
  });

  it.each<[string, (s: Obj) => void, string]>([
    ['its selector', (s) => (s.spec.selector.matchLabels.tier = 'x'), 'selector'],
    ['its claim templates', (s) => (s.spec.volumeClaimTemplates[0].spec.resources.requests.storage = '2Gi'), 'volumeClaimTemplates'],
    ['a claim template label', (s) => (s.spec.volumeClaimTemplates[0].metadata.labels = { chart: 'db-1.1.0' }), 'volumeClaimTemplates'],
    ['its service name', (s) => (s.spec.serviceName = 'db-headless'), 'serviceName'],
    ['its pod management policy', (s) => (s.spec.podManagementPolicy = 'Parallel'), 'podManagementPolicy'],
  ])('may not change %s', (_what, edit, field) => {
    expect(judge(sts, edited(sts, edit))).toEqual([
      `spec.${field}: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden (${field} changed)`,
    ]);
  });
});

const job: Obj = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'migrate' },
  spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'm', image: 'm:1.0', ports: [{ containerPort: 80 }] }] } } },
};

describe('a Job update (ValidateJobSpecUpdate)', () => {
  it('takes the defaults a template leaves out as equal, and refuses any other template change', () => {
    const spelled = edited(job, (j) => {
      Object.assign(j.spec.template.spec, { dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30 });
      Object.assign(j.spec.template.spec.containers[0], { imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log' });
      j.spec.template.spec.containers[0].ports[0].protocol = 'TCP';
    });
    expect(judge(job, spelled)).toEqual([]);
    expect(
      judge(
        job,
        edited(job, (j) => (j.spec.template.spec.containers[0].image = 'm:1.1')),
      ),
    ).toEqual(['spec.template: field is immutable (template spec.containers changed)']);
    // A latest tag pulls Always by default: IfNotPresent is a change.
    const latest = edited(job, (j) => (j.spec.template.spec.containers[0].image = 'm:latest'));
    expect(
      judge(
        latest,
        edited(latest, (j) => (j.spec.template.spec.containers[0].imagePullPolicy = 'IfNotPresent')),
      ),
    ).toHaveLength(1);
  });

  it('lets a suspended Job change its scheduling directives only, and says a Job with a TTL may be gone', () => {
    const suspended = edited(job, (j) => (j.spec.suspend = true));
    expect(
      judge(
        suspended,
        edited(suspended, (j) => (j.spec.template.spec.nodeSelector = { disk: 'ssd' })),
      ),
    ).toEqual([]);
    expect(
      judge(
        suspended,
        edited(suspended, (j) => (j.spec.template.spec.containers[0].image = 'm:2')),
      ),
    ).toHaveLength(1);
    const ttl = edited(job, (j) => (j.spec.ttlSecondsAfterFinished = 300));
    expect(
      judge(
        ttl,
        edited(ttl, (j) => (j.spec.template.spec.containers[0].image = 'm:2')),
      ),
    ).toEqual([expect.stringMatching(/^not judged spec\.template: field is immutable .* ttlSecondsAfterFinished \(300s\)/)]);
  });

  it('refuses completions, except an Indexed Job moving them with its parallelism', () => {
    const counted = edited(job, (j) => Object.assign(j.spec, { completions: 2, parallelism: 2 }));
    expect(
      judge(
        counted,
        edited(counted, (j) => (j.spec.completions = 3)),
      ),
    ).toEqual(['spec.completions: field is immutable']);
    const indexed = edited(counted, (j) => (j.spec.completionMode = 'Indexed'));
    expect(
      judge(
        indexed,
        edited(indexed, (j) => Object.assign(j.spec, { completions: 3, parallelism: 3 })),
      ),
    ).toEqual([]);
    expect(
      judge(
        indexed,
        edited(indexed, (j) => (j.spec.completions = 3)),
      ),
    ).toEqual(['spec.completions: can only be modified in tandem with spec.parallelism']);
  });
});

const claim: Obj = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data' },
  spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast', resources: { requests: { storage: '10Gi' } } },
};
const classes = (expand: boolean | undefined, defaultClass?: string): UpdateCluster => ({
  storageClass: (name) => (name === 'fast' ? { allowVolumeExpansion: expand } : undefined),
  defaultStorageClass: defaultClass,
});

describe('a claim update (ValidatePersistentVolumeClaimUpdate, PersistentVolumeClaimResize)', () => {
  it('grows only under a class that allows expansion, and never shrinks', () => {
    const bigger = edited(claim, (c) => (c.spec.resources.requests.storage = '20Gi'));
    expect(judge(claim, bigger, classes(true))).toEqual([]);
    expect(judge(claim, bigger, classes(undefined))).toEqual([
      expect.stringMatching(/^spec\.resources\.requests\.storage: persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized/),
    ]);
    expect(judge(claim, bigger)).toEqual([expect.stringMatching(/^not judged .*StorageClass fast is not in the repository/)]);
    expect(
      judge(
        claim,
        edited(claim, (c) => (c.spec.resources.requests.storage = '5Gi')),
        classes(true),
      ),
    ).toEqual(['spec.resources.requests.storage: Forbidden: field can not be less than status.capacity (10Gi -> 5Gi)']);
  });

  it('keeps the rest of its spec, its defaults and the binder`s volume aside', () => {
    expect(
      judge(
        claim,
        edited(claim, (c) => (c.spec.accessModes = ['ReadWriteMany'])),
      ),
    ).toEqual([expect.stringMatching(/^spec\.accessModes: spec: Forbidden: spec is immutable after creation/)]);
    expect(
      judge(
        claim,
        edited(claim, (c) => Object.assign(c.spec, { volumeMode: 'Filesystem', volumeName: 'pvc-1234' })),
      ),
    ).toEqual([]);
    expect(
      judge(
        claim,
        edited(claim, (c) => (c.spec.volumeAttributesClassName = 'gold')),
      ),
    ).toEqual([]);
  });

  it('reads a claim that named no class as holding the default class the repository marks, and cannot tell without one', () => {
    const unnamed = edited(claim, (c) => delete c.spec.storageClassName);
    expect(judge(unnamed, claim, classes(true, 'fast'))).toEqual([]);
    expect(
      judge(
        unnamed,
        edited(claim, (c) => (c.spec.storageClassName = 'slow')),
        classes(true, 'fast'),
      ),
    ).toEqual([expect.stringMatching(/^spec\.storageClassName: .* \(storageClassName changed\)/)]);
    expect(judge(unnamed, claim)).toEqual([expect.stringMatching(/^not judged spec\.storageClassName: the claim named no class at creation/)]);
    expect(judge(unnamed, unnamed)).toEqual([]);
  });
});

describe('other kinds', () => {
  const pv: Obj = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'share' },
    spec: { capacity: { storage: '1Ti' }, nfs: { server: 'nas', path: '/media' } },
  };
  const svc: Obj = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } };
  it('a volume keeps its source and mode; its capacity, class and mount options may change', () => {
    expect(
      judge(
        pv,
        edited(pv, (p) => (p.spec.nfs.path = '/volume1/media')),
      ),
    ).toEqual([expect.stringMatching(/^spec\.nfs: spec\.persistentvolumesource: Forbidden/)]);
    expect(
      judge(
        pv,
        edited(pv, (p) => Object.assign(p.spec, { capacity: { storage: '2Ti' }, mountOptions: ['nfsvers=4.1'], storageClassName: 'nfs' })),
      ),
    ).toEqual([]);
  });

  it('a Service keeps the address it was given and its load balancer class; one it never named is not judged', () => {
    expect(
      judge(
        svc,
        edited(svc, (s) => (s.spec.clusterIP = 'None')),
      ),
    ).toEqual([expect.stringMatching(/^spec\.clusterIP: spec\.clusterIPs\[0\]: Invalid value: \["None"\]: may not change once set/)]);
    expect(
      judge(
        svc,
        edited(svc, (s) => (s.spec.clusterIP = '10.43.0.10')),
      ),
    ).toEqual([expect.stringMatching(/^not judged spec\.clusterIP/)]);
    const fixed = edited(svc, (s) => (s.spec.clusterIP = '10.43.0.10'));
    expect(
      judge(
        fixed,
        edited(fixed, (s) => (s.spec.clusterIP = '10.43.0.11')),
      ),
    ).toHaveLength(1);
    expect(
      judge(
        fixed,
        edited(fixed, (s) => delete s.spec.clusterIP),
      ),
    ).toEqual([]);
    const lb = edited(svc, (s) => (s.spec.type = 'LoadBalancer'));
    expect(
      judge(
        lb,
        edited(lb, (s) => (s.spec.loadBalancerClass = 'io.cilium/l2-announcer')),
      ),
    ).toEqual(['spec.loadBalancerClass: spec.loadBalancerClass: Invalid value: "io.cilium/l2-announcer": may not change once set']);
    expect(
      judge(
        svc,
        edited(lb, (s) => (s.spec.loadBalancerClass = 'io.cilium/l2-announcer')),
      ),
    ).toEqual([]);
  });

  it('a Service keeps its primary IP family, adds a secondary, releases one only as SingleStack; families it never named meet the cluster default, or are not judged', () => {
    const v4 = edited(svc, (s) => (s.spec.ipFamilies = ['IPv4']));
    const dual = edited(svc, (s) => Object.assign(s.spec, { ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'PreferDualStack' }));
    expect(
      judge(
        v4,
        edited(v4, (s) => (s.spec.ipFamilies = ['IPv6'])),
      ),
    ).toEqual(['spec.ipFamilies: spec.ipFamilies[0]: Invalid value: ["IPv6"]: may not change once set (was ["IPv4"])']);
    expect(judge(v4, dual)).toEqual([]);
    expect(
      judge(
        dual,
        edited(dual, (s) => (s.spec.ipFamilies = ['IPv6', 'IPv4'])),
      ),
    ).toHaveLength(1);
    expect(
      judge(
        dual,
        edited(dual, (s) => (s.spec.ipFamilies = ['IPv4'])),
      ),
    ).toEqual([
      'spec.ipFamilyPolicy: spec.ipFamilyPolicy: Invalid value: "PreferDualStack": must be set to \'SingleStack\' when releasing the secondary ipFamily',
    ]);
    // SingleStack, or no policy (which the allocator makes SingleStack before validation), releases it.
    expect(
      judge(
        dual,
        edited(v4, (s) => (s.spec.ipFamilyPolicy = 'SingleStack')),
      ),
    ).toEqual([]);
    expect(judge(dual, v4)).toEqual([]);
    // Left out, the live families stay; named where they were not, they meet what the cluster chose.
    expect(judge(v4, svc)).toEqual([]);
    expect(judge(svc, v4)).toEqual([expect.stringMatching(/^not judged spec\.ipFamilies: names ipFamilies \["IPv4"\], where the cluster chose/)]);
    // Where the facts give the cluster's Service range, the family it chose is its default.
    const v4Cluster = { ...NO_CLASSES, serviceFamilies: ['IPv4'] };
    expect(judge(svc, v4, v4Cluster)).toEqual([]);
    expect(
      judge(
        svc,
        edited(v4, (s) => (s.spec.ipFamilies = ['IPv6', 'IPv4'])),
        v4Cluster,
      ),
    ).toEqual(['spec.ipFamilies: spec.ipFamilies[0]: Invalid value: ["IPv6","IPv4"]: may not change once set (was ["IPv4"])']);
    // A headless Service may change its families, and an ExternalName one has none.
    const headless = (o: Obj) => edited(o, (s) => (s.spec.clusterIP = 'None'));
    expect(judge(headless(v4), headless(edited(v4, (s) => (s.spec.ipFamilies = ['IPv6']))))).toEqual([]);
  });

  it('Secrets and ConfigMaps: the type, and with immutable set their data and the flag', () => {
    const secret: Obj = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, immutable: true, stringData: { a: 'x' } };
    expect(
      judge(
        secret,
        edited(secret, (s) => (s.stringData.a = 'y')),
      ),
    ).toEqual(['data: Forbidden: field is immutable when `immutable` is set']);
    expect(judge(secret, { ...secret, stringData: undefined, data: { a: Buffer.from('x').toString('base64') } })).toEqual([]);
    expect(
      judge(
        secret,
        edited(secret, (s) => (s.type = 'kubernetes.io/tls')),
      ),
    ).toEqual(['type: field is immutable']);
    const cm: Obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, immutable: true, data: { a: 'x' } };
    expect(
      judge(
        cm,
        edited(cm, (c) => delete c.immutable),
      ),
    ).toEqual(['immutable: Forbidden: field is immutable when `immutable` is set']);
    expect(judge({ ...cm, immutable: false }, { ...cm, immutable: false, data: { a: 'y' } })).toEqual([]);
  });

  it('bindings, classes, priorities and CRDs keep what they were made with', () => {
    const rb: Obj = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'r' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    };
    expect(
      judge(
        rb,
        edited(rb, (r) => (r.roleRef.name = 'edit')),
      ),
    ).toEqual(['roleRef: Invalid value: cannot change roleRef']);
    const sc: Obj = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'x', parameters: { pool: 'a' } };
    expect(
      judge(
        sc,
        edited(sc, (s) =>
          Object.assign(s, { parameters: { pool: 'b' }, reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: true }),
        ),
      ),
    ).toEqual([
      'parameters: Forbidden: updates to parameters are forbidden.',
      'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.',
      'volumeBindingMode: field is immutable',
    ]);
    expect(
      judge(
        sc,
        edited(sc, (s) => Object.assign(s, { reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' })),
      ),
    ).toEqual([]);
    const driver: Obj = { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'rbd.csi.ceph.com' }, spec: { attachRequired: true } };
    expect(
      judge(
        driver,
        edited(driver, (d) => Object.assign(d.spec, { attachRequired: false, podInfoOnMount: true })),
      ),
    ).toEqual(['spec.attachRequired: field is immutable']);
    expect(
      judge(
        driver,
        edited(driver, (d) => (d.spec.volumeLifecycleModes = ['Persistent'])),
      ),
    ).toEqual([]);
    const pc: Obj = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'p' }, value: 1000 };
    expect(judge(pc, { ...pc, value: 2000 })).toEqual(['value: Forbidden: may not be changed in an update.']);
    const crd: Obj = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: { scope: 'Namespaced', names: { kind: 'Widget' }, versions: [{ name: 'v1beta1', storage: true }] },
    };
    expect(
      judge(
        crd,
        edited(crd, (c) => (c.spec.versions = [{ name: 'v1', storage: true }])),
      ),
    ).toEqual(['spec.versions: status.storedVersions[0]: Invalid value: "v1beta1": must appear in spec.versions']);
    expect(
      judge(
        crd,
        edited(crd, (c) => c.spec.versions.push({ name: 'v1', storage: false })),
      ),
    ).toEqual([]);
    expect(
      judge(
        crd,
        edited(crd, (c) => (c.spec.scope = 'Cluster')),
      ),
    ).toEqual(['spec.scope: field is immutable']);
  });

  it('compares as apiequality.Semantic does: absent, null and empty alike, quantities by value', () => {
    expect(semanticEqual({ a: [], b: null }, {})).toBe(true);
    expect(semanticEqual({ requests: { storage: '1Gi' } }, { requests: { storage: '1024Mi' } })).toBe(true);
    expect(semanticEqual({ name: '1Gi' }, { name: '1024Mi' })).toBe(false);
  });
});

describe('malformed objects, as a pull request may write them', () => {
  it('are judged without an exception, in every kind judged', () => {
    const shapes: unknown[] = [null, 'x', 1, [], {}, { spec: null }, { spec: 'x' }, { spec: [] }, { spec: { containers: 'x', template: 1, selector: [] } }];
    for (const key of UPDATE_JUDGED_KINDS) {
      const [apiVersion, kind] = [key.slice(0, key.lastIndexOf('/')), key.slice(key.lastIndexOf('/') + 1)];
      for (const a of shapes)
        for (const b of shapes) {
          const [old, next] = [a, b].map((x) => ({ ...(typeof x === 'object' && x !== null && !Array.isArray(x) ? x : { spec: x }), apiVersion, kind }));
          expect(() => updateViolations(old as Obj, next as Obj, NO_CLASSES), `${key} ${JSON.stringify([a, b])}`).not.toThrow();
        }
    }
  });
});

describe('a bare Pod update (ValidatePodUpdate)', () => {
  const pod: Obj = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'probe' },
    spec: {
      activeDeadlineSeconds: 600,
      tolerations: [{ key: 'a', operator: 'Exists' }],
      schedulingGates: [{ name: 'wait' }],
      initContainers: [{ name: 'init', image: 'init:1' }],
      containers: [{ name: 'main', image: 'main:1', env: [{ name: 'A', value: '1' }] }],
    },
  };
  it.each<[string, (p: Obj) => void]>([
    ['its images', (p) => ((p.spec.containers[0].image = 'main:2'), (p.spec.initContainers[0].image = 'init:2'))],
    ['a shorter activeDeadlineSeconds', (p) => (p.spec.activeDeadlineSeconds = 300)],
    ['a toleration added', (p) => p.spec.tolerations.push({ key: 'b', operator: 'Exists' })],
    ['its scheduling gates removed', (p) => delete p.spec.schedulingGates],
    ['its labels', (p) => (p.metadata.labels = { app: 'probe' })],
    ['a default spelled out', (p) => (p.spec.terminationGracePeriodSeconds = 30)],
  ])('may change %s', (_what, edit) => {
    expect(judge(pod, edited(pod, edit))).toEqual([]);
  });

  it.each<[string, (p: Obj) => void, string]>([
    ['its environment', (p) => (p.spec.containers[0].env[0].value = '2'), 'spec: Forbidden: pod updates may not change fields other than'],
    [
      'a longer activeDeadlineSeconds',
      (p) => (p.spec.activeDeadlineSeconds = 900),
      'spec.activeDeadlineSeconds: Invalid value: must be less than or equal to previous value',
    ],
    [
      'activeDeadlineSeconds taken away',
      (p) => delete p.spec.activeDeadlineSeconds,
      'spec.activeDeadlineSeconds: Invalid value: must not update from a positive integer to nil value',
    ],
    ['a toleration removed', (p) => (p.spec.tolerations = []), 'spec.tolerations: Forbidden: pod updates may not change fields other than'],
    ['a scheduling gate added', (p) => p.spec.schedulingGates.push({ name: 'more' }), 'spec.schedulingGates: Forbidden: only deletion is allowed'],
    ['a container added', (p) => p.spec.containers.push({ name: 'side', image: 'side:1' }), 'spec: Forbidden: pod updates may not change fields other than'],
  ])('may not change %s', (_what, edit, message) => {
    expect(judge(pod, edited(pod, edit))).toEqual([expect.stringContaining(message)]);
  });
});

describe("how Argo CD's sync writes an object the cluster holds (gitops-engine sync_context.go)", () => {
  const annotated = (options: string) => ({ metadata: { annotations: { 'argocd.argoproj.io/sync-options': options } } });
  it.each<[string, { target: unknown; live: unknown; options: string[] }, string, string]>([
    ['a plain object', { target: {}, live: {}, options: [] }, 'kubectl apply', 'fails'],
    ['Force=true on the object', { target: annotated('Force=true'), live: {}, options: [] }, 'kubectl apply --force', 'recreates'],
    ['Force=true left on the live object', { target: {}, live: annotated('Force=true'), options: [] }, 'kubectl apply --force', 'recreates'],
    ["Force=true in the Application's options (an automated sync reads none)", { target: {}, live: {}, options: ['Force=true'] }, 'kubectl apply', 'fails'],
    ['server-side apply with Force=true', { target: annotated('Force=true,ServerSideApply=true'), live: {}, options: [] }, 'server-side apply', 'fails'],
    [
      'the app server-side, the object not',
      { target: annotated('ServerSideApply=false'), live: {}, options: ['ServerSideApply=true'] },
      'kubectl apply',
      'fails',
    ],
    ['Replace=true', { target: {}, live: {}, options: ['Replace=true'] }, 'kubectl replace', 'fails'],
    ['Replace=true and Force=true', { target: annotated('Replace=true,Force=true'), live: {}, options: [] }, 'kubectl replace --force', 'recreates'],
    ['a hook', { target: { metadata: { annotations: { 'argocd.argoproj.io/hook': 'PreSync' } } }, live: {}, options: [] }, 'kubectl apply', 'never updated'],
    [
      'an object Skip keeps out of every sync',
      { target: { metadata: { annotations: { 'argocd.argoproj.io/hook': 'Skip' } } }, live: {}, options: [] },
      'kubectl apply',
      'never updated',
    ],
  ])('%s: the command it runs, and what a refused update does', (_what, { target, live, options }, command, outcome) => {
    const m = syncMethodOf(target, live, options);
    expect([syncCommand(m), onRefusedUpdate(m, 'Deployment')]).toEqual([command, outcome]);
  });

  it('updates a CRD or Namespace in place under Replace=true and Force=true, which the API server still judges', () => {
    expect(onRefusedUpdate(syncMethodOf(annotated('Replace=true,Force=true'), {}, []), 'CustomResourceDefinition')).toBe('fails');
  });

  const gone = (live: unknown, options: string[], autoPrune: boolean) => ({ live, options, autoPrune });
  it.each<[string, ReturnType<typeof gone>, string]>([
    ['an automated sync that prunes', gone({}, [], true), 'deleted'],
    ['an automated sync that does not', gone({}, [], false), 'requires pruning'],
    ['Prune=false on the object', gone(annotated('Prune=false'), [], true), 'no prune'],
    ["Prune=false in the Application's options", gone({}, ['Prune=false'], true), 'no prune'],
    ["the object's Prune=true over the Application's Prune=false", gone(annotated('Prune=true'), ['Prune=false'], true), 'deleted'],
    ['Prune=confirm, pruning or not: the sync waits for a person', gone(annotated(' Prune=confirm '), [], false), 'waits for confirmation'],
    ['a hook', gone({ metadata: { annotations: { 'helm.sh/hook': 'pre-install' } } }, [], true), 'never pruned'],
    ['an object Skip keeps out of every sync', gone({ metadata: { annotations: { 'argocd.argoproj.io/hook': 'Skip' } } }, [], true), 'never pruned'],
  ])('prunes an object the repository no longer declares as pruneObject does: %s', (_what, { live, options, autoPrune }, outcome) => {
    expect(pruneOutcome(live, options, autoPrune)).toBe(outcome);
  });
});
