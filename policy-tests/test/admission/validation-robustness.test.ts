/**
 * The built-in validation never throws on what a chart may render: each kind's sample, with one to three of its
 * nodes replaced by values of the wrong type (null, numbers, strings, lists, maps), is judged without an exception,
 * at the minors where feature gates turn. Deterministic: a fixed seed, so a failure names the same input each run.
 */
import { describe, expect, it } from 'vitest';
import { validateBuiltin } from '../../admission/validation/kinds.ts';

const pod = {
  containers: [
    {
      name: 'web',
      image: 'web:1',
      ports: [{ containerPort: 80, name: 'http' }],
      securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'a' }, appArmorProfile: { type: 'Localhost', localhostProfile: 'x' } },
      env: [{ name: 'A', value: 'b' }],
    },
  ],
  securityContext: { sysctls: [{ name: 'net.core.somaxconn', value: '1' }] },
  hostNetwork: true,
  affinity: {
    podAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        {
          topologyKey: 'zone',
          labelSelector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'a', operator: 'In', values: ['b'] }] },
          matchLabelKeys: ['app'],
        },
      ],
    },
  },
  topologySpreadConstraints: [
    { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } }, matchLabelKeys: ['app'] },
  ],
  tolerations: [{ key: 'a', operator: 'Exists' }],
  restartPolicy: 'Never',
};
const template = { metadata: { labels: { app: 'web' } }, spec: pod };
const samples: [string, object][] = [
  [
    'Deployment',
    {
      metadata: { name: 'w' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template,
        strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
        progressDeadlineSeconds: 5,
      },
    },
  ],
  [
    'DaemonSet',
    {
      metadata: { name: 'w' },
      spec: { selector: { matchLabels: { app: 'web' } }, template, updateStrategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } },
    },
  ],
  [
    'StatefulSet',
    {
      metadata: { name: 'w' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template,
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } },
        ordinals: { start: 1 },
        persistentVolumeClaimRetentionPolicy: { whenScaled: 'Retain' },
      },
    },
  ],
  [
    'Job',
    {
      metadata: { name: 'w' },
      spec: {
        template,
        completionMode: 'Indexed',
        completions: 3,
        backoffLimitPerIndex: 1,
        maxFailedIndexes: 1,
        managedBy: 'a.io/b',
        podFailurePolicy: {
          rules: [
            { action: 'FailJob', onExitCodes: { operator: 'In', values: [1, 2], containerName: 'web' } },
            { action: 'Ignore', onPodConditions: [{ type: 'X', status: 'True' }] },
          ],
        },
        successPolicy: { rules: [{ succeededIndexes: '0-1', succeededCount: 1 }] },
        selector: { matchLabels: { 'job-name': 'w' } },
      },
    },
  ],
  [
    'Service',
    {
      metadata: { name: 's', annotations: { 'service.beta.kubernetes.io/load-balancer-source-ranges': '10.0.0.0/8' } },
      spec: {
        type: 'LoadBalancer',
        ports: [{ port: 80, nodePort: 30000, appProtocol: 'h2c', name: 'a' }],
        externalIPs: ['1.2.3.4'],
        loadBalancerSourceRanges: ['10.0.0.0/8'],
        sessionAffinity: 'ClientIP',
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 5 } },
        externalTrafficPolicy: 'Local',
        healthCheckNodePort: 3000,
        clusterIPs: ['1.1.1.1'],
        clusterIP: '1.1.1.1',
      },
    },
  ],
  [
    'HorizontalPodAutoscaler',
    {
      metadata: { name: 'h' },
      spec: {
        scaleTargetRef: { kind: 'Deployment', name: 'w' },
        minReplicas: 1,
        maxReplicas: 2,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 5 } } },
          { type: 'Object', object: { describedObject: { name: 'x' }, metric: { name: 'm' }, target: { type: 'Value', value: '1' } } },
        ],
        behavior: { scaleUp: { policies: [{ type: 'Pods', value: 1, periodSeconds: 5 }], selectPolicy: 'Max', stabilizationWindowSeconds: 3 } },
      },
    },
  ],
  [
    'Ingress',
    {
      metadata: { name: 'i', annotations: { 'kubernetes.io/ingress.class': 'a' } },
      spec: {
        ingressClassName: 'a',
        defaultBackend: { resource: { kind: 'K', name: 'n', apiGroup: 'a.io' } },
        rules: [{ host: '*.a.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 's', port: { number: 80 } } } }] } }],
        tls: [{ hosts: ['a.com'], secretName: 's' }],
      },
    },
  ],
  [
    'NetworkPolicy',
    {
      metadata: { name: 'n' },
      spec: {
        podSelector: { matchExpressions: [{ key: 'a', operator: 'Exists' }] },
        ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }], ports: [{ port: 80, endPort: 90 }] }],
      },
    },
  ],
  [
    'StorageClass',
    { metadata: { name: 'sc' }, provisioner: 'a.b/c', parameters: { a: 'b' }, allowedTopologies: [{ matchLabelExpressions: [{ key: 'z', values: ['a'] }] }] },
  ],
  [
    'PersistentVolumeClaim',
    {
      metadata: { name: 'p' },
      spec: { accessModes: ['ReadWriteOncePod'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'a', selector: { matchLabels: { a: 'b' } } },
    },
  ],
  ['ClusterRole', { metadata: { name: 'c' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] }, rules: [] }],
  [
    'ValidatingWebhookConfiguration',
    {
      metadata: { name: 'v' },
      webhooks: [
        {
          name: 'a.b.c',
          admissionReviewVersions: ['v1'],
          clientConfig: { url: 'https://a' },
          timeoutSeconds: 5,
          namespaceSelector: { matchLabels: { a: 'b' } },
        },
      ],
    },
  ],
  ['CronJob', { metadata: { name: 'c' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template } } } }],
];
const junk = [null, 0, -1, 1.5, '', 'x', true, [], [null], [1, 'a'], {}, { a: null }, [{}], [[]], '10%', '-5%', 'ff02::1', '999'];

/** Every path to a node of a value, its root left out. */
const paths = (v: unknown, at: (string | number)[] = []): (string | number)[][] =>
  !v || typeof v !== 'object' ? [at] : [at, ...Object.entries(v as object).flatMap(([k, c]) => paths(c, [...at, Array.isArray(v) ? Number(k) : k]))];

describe('the built-in validation on malformed objects', () => {
  it.each(samples)('judges a %s with wrong-typed nodes without throwing', (kind, sample) => {
    let seed = kind.length * 7919;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const nodes = paths(sample).filter((p) => p.length > 0);
    const thrown: string[] = [];
    for (let i = 0; i < 400; i++) {
      const o = structuredClone(sample) as Record<string | number, any>;
      for (let m = 0; m <= rnd(3); m++) {
        const path = nodes[rnd(nodes.length)]!;
        const parent = path.slice(0, -1).reduce<any>((cur, seg) => (cur && typeof cur === 'object' ? cur[seg] : undefined), o);
        if (parent && typeof parent === 'object') parent[path.at(-1)!] = structuredClone(junk[rnd(junk.length)]);
      }
      try {
        validateBuiltin(kind, o, [26, 29, 33, 35][rnd(4)]!);
      } catch (err) {
        thrown.push(`${JSON.stringify(o)}: ${(err as Error).message}`);
      }
    }
    expect(thrown.slice(0, 3)).toEqual([]);
  });
});
