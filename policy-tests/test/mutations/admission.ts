/** Broken copies of the real repository for the checks of policy-tests/admission/checks/: each fails exactly its check, at its line. */
import type { Mutation } from '../support/mutation-runner.ts';
import { crdYaml } from '../../../test-support/crd-fixture.ts';
import { lineOf, type RepoCopy } from '../support/helpers.ts';
import {
  CONTAINER,
  swap,
  API,
  SERVICE,
  NAMESPACES,
  STORE,
  after,
  inProject,
  PORTFOLIO_DEPLOYMENT,
  PRIVILEGED_NS_DEPLOYMENT,
  PLATFORM_RULES,
  replaceFirst,
} from './edits.ts';

const ARGOCD_CM = 'apps/platform/argocd/patches/argocd-cm.yaml';
const BACKUP_RBAC = 'apps/platform/backups/rbac.yaml';
const ETCD_BACKUP = 'apps/platform/backups/etcd-backup.yaml';
const RESTORE_TEST = 'apps/platform/backups/restore-test.yaml';
const API_RBAC = 'portfolio-api/deploy/rbac.yaml';
const STATUS_WRITER = 'portfolio-api/deploy/status-writer.yaml';
const API_INGRESS = 'portfolio-api/deploy/ingress.yaml';
const CLUSTER_ISSUER = 'apps/platform/cert-manager/clusterissuer.yaml';
const CLUSTER_SECRET_STORE = 'apps/platform/external-secrets/clustersecretstore.yaml';
const GRAFANA_SECRETS = 'monitoring/kube-prometheus-stack/externalsecrets.yaml';
const FOLDERS = 'apps/media/storage/folders.yaml';
const TDARR = 'apps/media/tdarr/deployment.yaml';
const VOLSYNC_APP = 'apps/platform/volsync/application.yaml';
const METALLB_POOLS = 'apps/platform/metallb/addresses.yaml';
export const CRD_FILE = 'apps/platform/backups/crd.yaml';
/** A small CRD the backups app applies (kind Drill), with these spec properties. */
export const drillCrd = (specProperties: string) => crdYaml({ group: 'backups.homelab.example', kind: 'Drill', plural: 'drills', specProperties });
/** The drill CRD with one schema node a mutation breaks, after its `target` string. */
const crd = (node: string) => drillCrd(`                target:\n                  type: string\n${node}`);

/** An admission policy's rules for Deployments, on create and update (under its matchConstraints). */
export const DEPLOYMENT_RULES =
  '    resourceRules:\n      - apiGroups: [apps]\n        apiVersions: [v1]\n        operations: [CREATE, UPDATE]\n        resources: [deployments]\n';

/**
 * A ValidatingAdmissionPolicy on the portfolio namespace's Deployments, with `body` (its variables, conditions and
 * validations), bound with Deny, applied by the backups app whose project is made to allow both kinds.
 */
const applyPolicy = (body: string) => (c: RepoCopy) => {
  c.write(
    'apps/platform/backups/policy.yaml',
    `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: single-replica
spec:
  failurePolicy: Fail
  matchConstraints:
${DEPLOYMENT_RULES}    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: portfolio
${body}---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: single-replica
spec:
  policyName: single-replica
  validationActions: [Deny]
`,
  );
  swap(
    'clusters/home/projects.yaml',
    '    - group: admissionregistration.k8s.io\n      kind: MutatingWebhookConfiguration\n',
    '    - group: admissionregistration.k8s.io\n      kind: MutatingWebhookConfiguration\n    - group: admissionregistration.k8s.io\n      kind: ValidatingAdmissionPolicy\n    - group: admissionregistration.k8s.io\n      kind: ValidatingAdmissionPolicyBinding\n',
  )(c);
};

/** A file of the root app's that sets the portfolio namespace's limits, as its owner would. */
const NAMESPACE_LIMITS = 'clusters/home/portfolio-limits.yaml';
/** The namespace's owner, the root app's project, made able to set them there (it blacklists them, and has no portfolio destination). */
export const ownLimits = (c: RepoCopy, yaml: string) => {
  c.edit('clusters/home/projects.yaml', 0, (d) => {
    d.deleteIn(['spec', 'namespaceResourceBlacklist']);
    d.addIn(['spec', 'destinations'], { server: 'https://kubernetes.default.svc', namespace: 'portfolio' });
  });
  c.write(NAMESPACE_LIMITS, yaml);
};
const limitRange = (limits: string) => `apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: bounds\n  namespace: portfolio\nspec:\n  limits:\n${limits}`;
const quota = (hard: string) => `apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: budget\n  namespace: portfolio\nspec:\n  hard:\n${hard}`;

const mutations: Mutation[] = [
  {
    check: 'api-validation',
    why: "a jsonnet file in the backups app yields a ConfigMap named 'Backup_' + 'Notes': Argo CD evaluates it and applies the object, which the API server refuses",
    mutate: (c) =>
      c.write(
        'apps/platform/backups/notes.jsonnet',
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Backup_' + 'Notes', namespace: 'backups' }, data: { note: 'x' } }\n",
      ),
    at: () => ({ file: 'apps/platform/backups/notes.jsonnet', line: 1 }),
  },
  {
    check: 'api-validation',
    why: "bazarr's radarr key loses the Secret it is read from: the schema leaves the name optional, and the API server refuses it empty",
    mutate: replaceFirst(
      'apps/media/bazarr/deployment.yaml',
      '                secretKeyRef:\n                  name: radarr-api-key\n',
      '                secretKeyRef:\n',
    ),
    at: (c) => lineOf(c, 'apps/media/bazarr/deployment.yaml', '- name: DYNACONF_RADARR__APIKEY') + 2,
  },
  {
    check: 'api-validation',
    why: "the portfolio namespace's quota writes a negative pod count: the API server refuses the quota",
    mutate: (c) => ownLimits(c, quota('    pods: "-1"\n')),
    at: 'pods: "-1"',
  },
  {
    check: 'api-validation',
    why: "the portfolio namespace's LimitRange gives its Pod item a default, which only a Container item may have: the API server refuses the LimitRange",
    mutate: (c) => ownLimits(c, limitRange('    - type: Pod\n      default: {cpu: "1"}\n')),
    at: 'default: {cpu: "1"}',
  },
  {
    check: 'namespace-limits',
    why: "the portfolio namespace's LimitRange caps a container's memory below the API's limit: LimitRanger refuses its pods, and the Deployment never has one",
    mutate: (c) => ownLimits(c, limitRange('    - type: Container\n      max: {memory: 128Mi}\n')),
    at: (c) => ({ file: API, line: lineOf(c, API, 'resources:') }),
  },
  {
    check: 'namespace-limits',
    why: "the portfolio namespace's quota limits CPU, and the API's container states no CPU limit: every pod is refused (must specify limits.cpu)",
    mutate: (c) => ownLimits(c, quota('    limits.cpu: "2"\n')),
    at: (c) => ({ file: API, line: lineOf(c, API, '    spec:') }),
  },
  {
    check: 'namespace-limits',
    why: "the portfolio namespace's quota holds two pods: the API's two replicas fit, and its rolling update's surge never does",
    mutate: (c) => ownLimits(c, quota('    pods: "2"\n')),
    at: 'pods: "2"',
  },
  {
    check: 'service-allocation',
    why: "the API's Service asks for a cluster IP from another cluster's range (k3s' 10.43.0.0/16): the allocator refuses it, and the Service never syncs",
    mutate: (c) => c.edit(SERVICE, 0, (d) => d.setIn(['spec', 'clusterIP'], '10.43.0.10')),
    at: 'clusterIP: 10.43.0.10',
  },
  {
    check: 'service-allocation',
    why: "the API's Service demands dual-stack on a single-stack cluster",
    mutate: (c) => c.edit(SERVICE, 0, (d) => d.setIn(['spec', 'ipFamilyPolicy'], 'RequireDualStack')),
    at: 'ipFamilyPolicy: RequireDualStack',
  },
  {
    check: 'service-allocation',
    why: "the API's Service and Bazarr's ask for one cluster IP: Bazarr's app syncs a wave later, and its Service is refused",
    mutate: (c) => {
      c.edit(SERVICE, 0, (d) => d.setIn(['spec', 'clusterIP'], '10.96.100.100'));
      c.edit('apps/media/bazarr/service.yaml', 0, (d) => d.setIn(['spec', 'clusterIP'], '10.96.100.100'));
    },
    at: (c) => ({ file: 'apps/media/bazarr/service.yaml', line: lineOf(c, 'apps/media/bazarr/service.yaml', 'clusterIP: 10.96.100.100') }),
  },
  // Built-in validation, one per family.
  {
    check: 'api-validation',
    why: 'the public IngressClass names its controller null, which Go decodes as "": the API server refuses the class as it would one without (Required value)',
    mutate: swap('apps/platform/ingress-public/ingressclass.yaml', '  controller: traefik.io/ingress-controller\n', '  controller: null\n'),
    at: 'controller: null',
  },
  {
    check: 'api-validation',
    why: 'a label value with a space (ValidateLabels)',
    mutate: swap(
      API,
      '  labels:\n    app.kubernetes.io/name: portfolio-api\nspec:',
      '  labels:\n    app.kubernetes.io/name: portfolio-api\n    team: home lab\nspec:',
    ),
    at: 'team: home lab',
  },
  {
    check: 'api-validation',
    why: 'the Service as kubectl get -o yaml prints it: a resourceVersion no create may set, and a uid no later apply may change',
    mutate: (c) =>
      c.edit(SERVICE, 0, (d) => {
        d.setIn(['metadata', 'resourceVersion'], '48213');
        d.setIn(['metadata', 'uid'], '0b7d5a2e-5a7e-4a53-9c1e-3f1d2c4b5a6e');
      }),
    at: 'resourceVersion:',
  },
  {
    check: 'api-validation',
    why: 'the Service owned, as kubectl get -o yaml prints a dependent, by an object of a uid no new cluster has: the garbage collector deletes it',
    mutate: (c) =>
      c.edit(SERVICE, 0, (d) =>
        d.setIn(
          ['metadata', 'ownerReferences'],
          d.createNode([{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'portfolio-api', uid: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f' }]),
        ),
      ),
    at: 'ownerReferences:',
  },
  {
    check: 'api-validation',
    why: 'a label value of 64 characters',
    mutate: swap(
      API,
      '  labels:\n    app.kubernetes.io/name: portfolio-api\nspec:',
      `  labels:\n    app.kubernetes.io/name: portfolio-api\n    note: ${'a'.repeat(64)}\nspec:`,
    ),
    at: 'note: aaaa',
  },
  {
    check: 'api-validation',
    why: "a Deployment whose selector does not match its template's labels",
    mutate: swap(
      API,
      '    matchLabels:\n      app.kubernetes.io/name: portfolio-api\n',
      '    matchLabels:\n      app.kubernetes.io/name: portfolio-api\n      tier: web\n',
    ),
    at: after(API, '  template:', 'labels:'),
  },
  {
    check: 'api-validation',
    why: 'a memory request above its limit',
    mutate: (c) => c.edit(API, 0, (d) => d.setIn([...CONTAINER, 'resources', 'requests', 'memory'], '256Mi')),
    at: 'memory: 256Mi',
  },
  {
    check: 'api-validation',
    why: "Tdarr's node is given two GPU shares and still asks for one: a GPU cannot be overcommitted, so its request must equal its limit (validateResourceRequirements)",
    mutate: swap(TDARR, '              memory: 4Gi\n              gpu.intel.com/i915: "1"', '              memory: 4Gi\n              gpu.intel.com/i915: "2"'),
    at: 'gpu.intel.com/i915: "1"',
  },
  {
    check: 'api-validation',
    why: 'an env var reads a pod field the kubelet does not fill in (validateObjectFieldSelector: metadata.nam)',
    mutate: (c) =>
      c.edit(API, 0, (d) =>
        (d.getIn([...CONTAINER, 'env']) as { add(v: unknown): void }).add(
          d.createNode({ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.nam' } } }),
        ),
      ),
    at: 'fieldPath: metadata.nam',
  },
  {
    check: 'api-validation',
    why: 'the status volume gives its file mode as decimal 755, which is 01363: past 0777 (validateConfigMapVolumeSource)',
    mutate: swap(
      API,
      '            name: portfolio-infra-status\n            optional: true\n',
      '            name: portfolio-infra-status\n            optional: true\n            defaultMode: 755\n',
    ),
    at: 'defaultMode: 755',
  },
  {
    check: 'api-validation',
    why: "the API is given a minute's preStop sleep to drain, past its pod's grace period of 30 s (validateSleepAction)",
    mutate: (c) => c.edit(API, 0, (d) => d.setIn([...CONTAINER, 'lifecycle'], d.createNode({ preStop: { sleep: { seconds: 60 } } }))),
    at: 'sleep:',
  },
  {
    check: 'api-validation',
    why: 'a probe with two handlers',
    mutate: (c) => c.edit(API, 0, (d) => d.setIn([...CONTAINER, 'livenessProbe', 'tcpSocket'], d.createNode({ port: 3000 }))),
    at: 'tcpSocket:',
  },
  {
    check: 'api-validation',
    why: 'a Service port name that is not a DNS label',
    mutate: (c) =>
      c.edit(SERVICE, 0, (d) =>
        (d.getIn(['spec', 'ports']) as { add(v: unknown): void }).add(d.createNode({ name: 'Web_Port', port: 8081, targetPort: 3000 })),
      ),
    at: 'name: Web_Port',
  },
  {
    check: 'api-validation',
    why: 'a Service port above 65535',
    mutate: (c) => c.edit(SERVICE, 0, (d) => d.setIn(['spec', 'ports', 0, 'port'], 70000)),
    at: 'port: 70000',
  },
  {
    check: 'api-validation',
    why: 'a ConfigMap key with a space',
    mutate: (c) =>
      c.write(
        'portfolio-api/deploy/extra.yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: portfolio\ndata:\n  "my key": value\n',
      ),
    at: 'my key',
  },
  {
    check: 'api-validation',
    why: 'an image reference no node can pull (an upper-case repository)',
    mutate: swap(API, 'image: ghcr.io/homelab-operator/portfolio-api:1.0.0', 'image: ghcr.io/Homelab-Operator/portfolio-api:1.0.0'),
    at: 'image: ghcr.io/Homelab-Operator',
  },
  {
    check: 'api-validation',
    why: 'two volumes with one name',
    mutate: (c) => c.edit(API, 0, (d) => d.setIn(['spec', 'template', 'spec', 'volumes', 1, 'name'], 'status')),
    at: (c) => ({
      file: API,
      line:
        c
          .read(API)
          .split('\n')
          .findLastIndex((l) => l.includes('- name: status')) + 1,
    }),
  },
  {
    check: 'api-validation',
    why: 'a port name longer than 15 characters',
    mutate: (c) => {
      swap(API, '            - name: metrics\n', '            - name: prometheus-metrics\n')(c);
      // The network policy and the Service's targetPort name the port too; renamed with it, so only the name's length is wrong.
      swap('portfolio-api/deploy/networkpolicy.yaml', '        - port: metrics', '        - port: prometheus-metrics')(c);
      swap('portfolio-api/deploy/service.yaml', '      targetPort: metrics', '      targetPort: prometheus-metrics')(c);
    },
    at: 'name: prometheus-metrics',
  },
  {
    check: 'api-validation',
    why: 'a CronJob name over 52 characters',
    mutate: (c) => c.edit('portfolio-api/deploy/status-writer.yaml', 0, (d) => d.setIn(['metadata', 'name'], `status-writer-${'x'.repeat(40)}`)),
    at: 'status-writer-xxxx',
  },
  {
    check: 'api-validation',
    why: "a rule added to the status writer's Role without its resources: ValidatePolicyRule requires one, the API server refuses the whole Role, and the writer is forbidden what it reports (the rules it declares would allow it, so only validation sees this)",
    mutate: swap(
      API_RBAC,
      '  - apiGroups: ["apps"]\n    resources: ["deployments"]\n',
      '  - apiGroups: ["apps"]\n    verbs: ["list"]\n  - apiGroups: ["apps"]\n    resources: ["deployments"]\n',
    ),
    at: (c) => ({ file: API_RBAC, line: c.read(API_RBAC).split('\n').indexOf('  - apiGroups: ["apps"]') + 1 }),
  },
  {
    check: 'kubelet-admits',
    why: "the status writer's command begins with an empty string: the API server takes it, and runc finds no executable to run (StartError), so no status is ever written",
    mutate: swap('portfolio-api/deploy/status-writer.yaml', 'command: ["node", "dist/status-writer/main.js"]', 'command: ["", "dist/status-writer/main.js"]'),
    at: 'command: ["", "dist/status-writer/main.js"]',
  },
  {
    check: 'api-validation',
    why: "the status writer's RoleBinding left naming no role: ValidateRoleBinding requires roleRef.name, and the API server refuses the binding",
    mutate: swap(
      'portfolio-api/deploy/rbac.yaml',
      '  kind: Role\n  name: portfolio-status-writer\nsubjects:\n  - kind: ServiceAccount\n    name: portfolio-status-writer\n    namespace: portfolio\n',
      '  kind: Role\n  name: ""\nsubjects:\n  - kind: ServiceAccount\n    name: portfolio-status-writer\n    namespace: portfolio\n',
    ),
    at: 'name: ""',
  },
  // Pod Security admission.
  {
    check: 'cert-manager-webhook',
    why: "the API's certificate is asked to last half an hour: cert-manager's webhook refuses any under an hour, and the sync fails",
    mutate: swap(API_INGRESS, '  secretName: portfolio-tls\n  dnsNames:', '  secretName: portfolio-tls\n  duration: 30m\n  dnsNames:'),
    at: (c) => ({ file: API_INGRESS, line: lineOf(c, API_INGRESS, '  duration: 30m') }),
  },
  {
    check: 'cert-manager-webhook',
    why: "the Cloudflare token's Secret is named without its key: the CRD's schema asks only for the name, cert-manager's webhook refuses the ClusterIssuer (secret key is required), and no certificate is issued",
    mutate: swap(CLUSTER_ISSUER, '              name: cloudflare-api-token\n              key: api-token\n', '              name: cloudflare-api-token\n'),
    at: (c) => ({ file: CLUSTER_ISSUER, line: lineOf(c, CLUSTER_ISSUER, '            apiTokenSecretRef:') }),
  },
  {
    check: 'external-secrets-webhook',
    why: "the 1Password token's Secret named without its namespace, as a namespaced SecretStore's example gives it: External Secrets' webhook refuses the ClusterSecretStore (cluster scope requires namespace), and no ExternalSecret is ever filled",
    mutate: swap(CLUSTER_SECRET_STORE, '          key: token\n          namespace: external-secrets\n', '          key: token\n'),
    at: (c) => ({ file: CLUSTER_SECRET_STORE, line: lineOf(c, CLUSTER_SECRET_STORE, '        serviceAccountSecretRef:') }),
  },
  {
    check: 'external-secrets-webhook',
    why: "the watchdog token refreshed every 9999999999999h: the CRD takes any text, the webhook's decoder (a metav1.Duration, Go's ParseDuration) refuses a duration past its range, and the Secret is never written",
    mutate: swap(GRAFANA_SECRETS, 'refreshInterval: 24h', 'refreshInterval: 9999999999999h'),
    at: (c) => ({ file: GRAFANA_SECRETS, line: lineOf(c, GRAFANA_SECRETS, 'refreshInterval: 9999999999999h') }),
  },
  {
    check: 'external-secrets-webhook',
    why: "Grafana's admin login reads its password from the same field twice (a copied entry whose secretKey was not changed): External Secrets' webhook refuses the duplicate secretKey while the Secret is retained",
    mutate: swap(
      GRAFANA_SECRETS,
      '    - secretKey: admin-password\n      remoteRef:\n        key: grafana-admin/password\n',
      '    - secretKey: admin-password\n      remoteRef:\n        key: grafana-admin/password\n    - secretKey: admin-password\n      remoteRef:\n        key: grafana-admin/password-previous\n',
    ),
    at: (c) => ({ file: GRAFANA_SECRETS, line: lineOf(c, GRAFANA_SECRETS, 'key: grafana-admin/password-previous') - 2 }),
  },
  {
    check: 'metallb-webhook',
    why: "the LAN pool's range written from its top down (.249-.240): MetalLB's webhook refuses the pool (start IP after the end IP), and neither proxy gets its address",
    mutate: swap(METALLB_POOLS, '    - 192.168.1.240-192.168.1.249\n', '    - 192.168.1.249-192.168.1.240\n'),
    at: (c) => ({ file: METALLB_POOLS, line: lineOf(c, METALLB_POOLS, '192.168.1.249-192.168.1.240') }),
  },
  {
    check: 'metallb-webhook',
    why: "the private proxy's address given a pool of its own (to keep it from auto-assignment) while the LAN pool's range still holds it: MetalLB's webhook refuses the second pool, whose CIDR overlaps the first's",
    mutate: swap(
      METALLB_POOLS,
      '    - 192.168.1.240-192.168.1.249\n---\n',
      '    - 192.168.1.240-192.168.1.249\n---\napiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata:\n  name: private\n  namespace: metallb-system\n  annotations:\n    argocd.argoproj.io/sync-wave: "1"\n    argocd.argoproj.io/sync-options: SkipDryRunOnMissingResource=true\nspec:\n  addresses:\n    - 192.168.1.241/32\n  autoAssign: false\n---\n',
    ),
    at: (c) => ({ file: METALLB_POOLS, line: lineOf(c, METALLB_POOLS, '192.168.1.241/32') }),
  },
  {
    check: 'prometheus-operator-webhook',
    why: "the hypervisor storage alert's summary rounds with humanizePercent, a function Prometheus's templates do not have (humanizePercentage is): the operator's webhook refuses the PrometheusRule (function not defined), and none of the hypervisor's alerts load",
    mutate: replaceFirst('monitoring/alert-rules/hypervisor.yaml', '{{ $value | humanize }}% full.', '{{ $value | humanizePercent }} full.'),
    at: 'humanizePercent',
  },
  {
    check: 'prometheus-operator-webhook',
    why: "the OOM alert's summary reads $label.pod, one letter short of $labels: the template does not parse (undefined variable), and the operator's webhook refuses the platform rules",
    mutate: replaceFirst(
      PLATFORM_RULES,
      '/{{ $labels.pod }}/{{ $labels.container }} was OOM-killed.',
      '/{{ $label.pod }}/{{ $labels.container }} was OOM-killed.',
    ),
    at: '$label.pod',
  },
  {
    check: 'prometheus-operator-webhook',
    why: "the restart alert's increase() written without its range: Prometheus's parser refuses an instant vector where increase() needs a range vector, and the operator's webhook refuses the rule",
    mutate: replaceFirst(
      PLATFORM_RULES,
      'increase(kube_pod_container_status_restarts_total[1h]) > 5',
      'increase(kube_pod_container_status_restarts_total) > 5',
    ),
    at: 'increase(kube_pod_container_status_restarts_total) > 5',
  },
  {
    check: 'kubelet-admits',
    why: "the VPN pod sets WireGuard's net.ipv4.conf.all.src_valid_mark, as its image's docs suggest: its privileged namespace admits it, and every node's kubelet, which Talos lets run no unsafe sysctl, fails the pod (SysctlForbidden)",
    mutate: swap(
      PRIVILEGED_NS_DEPLOYMENT,
      '        fsGroup: 1000\n        seccompProfile:\n',
      '        fsGroup: 1000\n        sysctls:\n          - name: net.ipv4.conf.all.src_valid_mark\n            value: "1"\n        seccompProfile:\n',
    ),
    at: '- name: net.ipv4.conf.all.src_valid_mark',
    fix: 'drop the sysctl, or allow it on the nodes (machine.kubelet.extraConfig.allowedUnsafeSysctls in the Talos machine config) and say so in the cluster facts (machineConfig)',
  },
  {
    check: 'kubelet-admits',
    why: "the API's scratch volume asks for medium memory, in lower case: the API server stores any medium, and the kubelet fails the mount (unknown storage medium)",
    mutate: swap(API, '          emptyDir:\n            sizeLimit: 16Mi\n', '          emptyDir:\n            medium: memory\n            sizeLimit: 16Mi\n'),
    at: 'medium: memory',
  },
  {
    check: 'kubelet-admits',
    why: 'the API is told never to pull its image, as for an image loaded onto a laptop cluster: a Talos node holds it only where a pull put it, and the kubelet fails the container (ErrImageNeverPull)',
    mutate: swap(
      API,
      '          image: ghcr.io/homelab-operator/portfolio-api:1.0.0\n',
      '          image: ghcr.io/homelab-operator/portfolio-api:1.0.0\n          imagePullPolicy: Never\n',
    ),
    at: 'imagePullPolicy: Never',
    fix: 'pull the image as the kubelet does by default (imagePullPolicy: IfNotPresent, or Always for a moving tag)',
  },
  {
    check: 'kubelet-admits',
    why: "gluetun adds SYS_MODULE to load WireGuard's kernel module, as its docs suggest for a kernel tunnel, named among its privileges: Pod Security lets its privileged namespace have it, and Talos' container runtime, which runs without it, fails the container",
    mutate: (c) => {
      swap(PRIVILEGED_NS_DEPLOYMENT, 'add: ["NET_ADMIN", "MKNOD"]', 'add: ["NET_ADMIN", "MKNOD", "SYS_MODULE"]')(c);
      swap(PRIVILEGED_NS_DEPLOYMENT, '"gluetun: root, cap:NET_ADMIN, cap:MKNOD"', '"gluetun: root, cap:NET_ADMIN, cap:MKNOD, cap:SYS_MODULE"')(c);
    },
    at: 'add: ["NET_ADMIN", "MKNOD", "SYS_MODULE"]',
    fix: 'drop the capability: Talos loads the kernel modules a workload needs itself (machine.kernel.modules in the machine config, or a system extension), and reboots its nodes itself',
  },
  {
    check: 'kubelet-admits',
    why: "the API's pods labelled kubernetes.io/os: Linux, capitalised, as a dashboard's filter wanted it: the kubelet holds that label to its node's own, linux, and fails every pod (PodOSSelectorNodeLabelDoesNotMatch)",
    mutate: swap(API, '        app.kubernetes.io/name: portfolio-api\n', '        app.kubernetes.io/name: portfolio-api\n        kubernetes.io/os: Linux\n'),
    at: 'kubernetes.io/os: Linux',
    fix: 'drop the label and spec.os, or set them to linux: every Talos node is a Linux node (to choose nodes, use a nodeSelector on kubernetes.io/os)',
  },
  {
    check: 'kubelet-admits',
    why: 'the cluster facts say the nodes allow vm.swappiness, which the kernel keeps for the whole node: a kubelet told so does not start',
    mutate: swap('clusters/home/cluster-facts.yaml', '          allowedUnsafeSysctls: []\n', '          allowedUnsafeSysctls: [vm.swappiness]\n'),
    at: '  machineConfig: |',
    fix: 'name only sysctls the kernel keeps per network or IPC namespace (net.*, kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*), as the machine config must',
  },
  {
    check: 'pod-security',
    why: 'a seccomp profile Unconfined in the restricted portfolio namespace',
    mutate: (c) => c.edit(API, 0, (d) => d.setIn(['spec', 'template', 'spec', 'securityContext', 'seccompProfile', 'type'], 'Unconfined')),
    at: 'type: Unconfined',
  },
  {
    check: 'pod-security',
    why: "the media namespace's label removed, so the VPN pod meets the cluster's default, baseline, which refuses NET_ADMIN",
    mutate: (c) =>
      c.write(
        NAMESPACES,
        c
          .read(NAMESPACES)
          .replace(
            /( +# The VPN pod[^\n]*\n(?: +#[^\n]*\n)*)? +pod-security\.kubernetes\.io\/enforce: privileged\n( +pod-security\.kubernetes\.io\/(?:warn|audit): baseline\n)*/,
            '',
          )
          .replace(/ +gate\.homelab-gitops\/pod-security-reason: "the VPN pod[^\n]*\n/, ''),
      ),
    at: (c) => ({
      file: 'apps/media/gluetun/deployment.yaml',
      line:
        c
          .read('apps/media/gluetun/deployment.yaml')
          .split('\n')
          .findIndex((l) => l.includes('add: ["NET_ADMIN"')) + 1,
    }),
  },
  {
    check: 'pod-security',
    why: "VolSync's Application lowers the namespace it creates to privileged through managedNamespaceMetadata, which Argo CD writes on it, without saying why",
    mutate: (c) =>
      c.edit(VOLSYNC_APP, 0, (d) =>
        d.setIn(['spec', 'syncPolicy', 'managedNamespaceMetadata'], d.createNode({ labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } })),
      ),
    at: 'pod-security.kubernetes.io/enforce: privileged',
  },
  {
    check: 'pod-security',
    why: 'the VPN namespace pins its enforce level to policy version "1.30", without the v Pod Security reads: it refuses the namespace',
    mutate: swap(
      NAMESPACES,
      '    pod-security.kubernetes.io/enforce: privileged\n',
      '    pod-security.kubernetes.io/enforce: privileged\n    pod-security.kubernetes.io/enforce-version: "1.30"\n',
    ),
    at: 'enforce-version: "1.30"',
  },
  {
    check: 'pod-security',
    why: 'a privileged namespace that does not say why',
    mutate: (c) => c.write(NAMESPACES, c.read(NAMESPACES).replace(/ +gate\.homelab-gitops\/pod-security-reason: "the MetalLB.*\n/, '')),
    at: after(NAMESPACES, 'name: metallb-system', 'enforce: privileged'),
  },
  // CRD validation rules (CEL).
  {
    check: 'crd-validation-rule',
    why: 'the 1Password SDK store with both a vault and an environment',
    mutate: swap(STORE, '      vault: homelab\n', '      vault: homelab\n      environment: production\n'),
    at: 'onepasswordSDK:',
  },
  {
    check: 'api-validation',
    why: 'a Drill whose steps its CRD makes a list-map keyed by name, holding the name restore twice: the API server answers Duplicate value',
    mutate: (c) => {
      c.write(
        CRD_FILE,
        crd(
          '                steps:\n                  type: array\n                  x-kubernetes-list-type: map\n                  x-kubernetes-list-map-keys: [name]\n                  items:\n                    type: object\n                    required: [name]\n                    properties:\n                      name:\n                        type: string\n',
        ),
      );
      c.write(
        'apps/platform/backups/drill.yaml',
        'apiVersion: backups.homelab.example/v1\nkind: Drill\nmetadata:\n  name: nightly\n  namespace: backups\n  annotations:\n    argocd.argoproj.io/sync-options: SkipDryRunOnMissingResource=true\nspec:\n  target: sonarr\n  steps:\n    - name: restore\n    - name: restore\n',
      );
    },
    at: (c) => ({
      file: 'apps/platform/backups/drill.yaml',
      line: c.read('apps/platform/backups/drill.yaml').split('\n').lastIndexOf('    - name: restore') + 1,
    }),
  },
  // What the API server refuses when a CRD is created.
  {
    check: 'crd-accepted',
    why: 'a CRD that marks two versions for storage: the API server keeps one',
    mutate: (c) =>
      c.write(
        CRD_FILE,
        drillCrd('                target:\n                  type: string').replace(
          '  versions:\n',
          '  versions:\n    - name: v1alpha1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          x-kubernetes-preserve-unknown-fields: true\n',
        ),
      ),
    at: '  versions:',
  },
  {
    check: 'crd-accepted',
    why: 'a CRD whose list asks uniqueItems, which the API server refuses (its cost is quadratic)',
    mutate: (c) =>
      c.write(
        CRD_FILE,
        crd(
          '                hosts:\n                  type: array\n                  uniqueItems: true\n                  items:\n                    type: string',
        ),
      ),
    at: 'uniqueItems: true',
  },
  {
    check: 'crd-accepted',
    why: 'a CRD in a kubernetes.io group, which the API server holds for approved APIs, without its api-approved.kubernetes.io annotation',
    mutate: (c) =>
      c.write(
        CRD_FILE,
        crdYaml({ group: 'backups.kubernetes.io', kind: 'Drill', plural: 'drills', specProperties: '                target:\n                  type: string' }),
      ),
    at: 'metadata:',
  },
  {
    check: 'crd-accepted',
    why: 'a CRD whose validation rule does not compile',
    mutate: (c) => c.write(CRD_FILE, crd('                  x-kubernetes-validations:\n                    - rule: "self.size() >"')),
    at: '- rule: "self.size() >"',
  },
  {
    check: 'crd-accepted',
    why: 'a CRD whose rule calls a function the cluster does not declare',
    mutate: (c) => c.write(CRD_FILE, crd('                  x-kubernetes-validations:\n                    - rule: "self.isHostname()"')),
    at: '- rule: "self.isHostname()"',
  },
  {
    check: 'crd-accepted',
    why: 'a CRD whose rule matches a constant pattern RE2 refuses (a lookahead)',
    mutate: (c) => c.write(CRD_FILE, crd('                  x-kubernetes-validations:\n                    - rule: "self.matches(\'^(?=db)[a-z]+$\')"')),
    at: `- rule: "self.matches('^(?=db)[a-z]+$')"`,
  },
  {
    check: 'crd-accepted',
    why: 'a CRD whose rule selects a field its schema node does not declare (the type check refuses it)',
    mutate: (c) =>
      c.write(
        CRD_FILE,
        crd(
          '                limits:\n                  type: object\n                  properties:\n                    max:\n                      type: integer\n                  x-kubernetes-validations:\n                    - rule: "self.min <= self.max"',
        ),
      ),
    at: '- rule: "self.min <= self.max"',
  },
  {
    check: 'crd-accepted',
    why: "a CRD whose rule nests comprehensions over a list with no maxItems: over the API server's estimated cost limit",
    mutate: (c) =>
      c.write(
        CRD_FILE,
        crd(
          '                hosts:\n                  type: array\n                  items:\n                    type: string\n                  x-kubernetes-validations:\n                    - rule: "self.all(x, self.all(y, self.all(z, true)))"',
        ),
      ),
    at: '- rule: "self.all(x, self.all(y, self.all(z, true)))"',
  },
  {
    check: 'crd-accepted',
    why: "a CRD whose rule compares every pair of a bounded list's strings, strings with no maxLength: each comparison walks a whole request (cel-go's estimate, not a count of iterations)",
    mutate: (c) =>
      c.write(
        CRD_FILE,
        crd(
          '                hosts:\n                  type: array\n                  maxItems: 100\n                  items:\n                    type: string\n                  x-kubernetes-validations:\n                    - rule: "self.all(x, self.exists_one(y, x == y))"',
        ),
      ),
    at: '- rule: "self.all(x, self.exists_one(y, x == y))"',
  },
  {
    check: 'crd-accepted',
    why: 'a CRD whose rule names a variable nothing declares (self mistyped): the API server declares self and oldSelf alone',
    mutate: (c) => c.write(CRD_FILE, crd('                  x-kubernetes-validations:\n                    - rule: "slef.size() > 0"')),
    at: '- rule: "slef.size() > 0"',
  },
  {
    check: 'crd-accepted',
    why: 'a CRD whose rule evaluates to a number, not a bool (the API server: cel expression must evaluate to a bool)',
    mutate: (c) => c.write(CRD_FILE, crd('                  x-kubernetes-validations:\n                    - rule: "self.size()"')),
    at: '- rule: "self.size()"',
  },
  {
    check: 'crd-accepted',
    why: 'a CRD whose messageExpression evaluates to a number, not a string',
    mutate: (c) =>
      c.write(
        CRD_FILE,
        crd(
          '                  x-kubernetes-validations:\n                    - rule: "self.size() > 0"\n                      messageExpression: "self.size()"',
        ),
      ),
    at: 'messageExpression: "self.size()"',
  },
  {
    check: 'crd-accepted',
    why: 'a CRD whose transition rule (oldSelf) sits under the items of a list that is not a map list: nothing correlates old and new items',
    mutate: (c) =>
      c.write(
        CRD_FILE,
        crd(
          '                hosts:\n                  type: array\n                  items:\n                    type: string\n                    x-kubernetes-validations:\n                      - rule: "self == oldSelf"',
        ),
      ),
    at: '- rule: "self == oldSelf"',
  },
  {
    check: 'crd-accepted',
    why: 'a CRD rule with optionalOldSelf that never reads oldSelf',
    mutate: (c) =>
      c.write(
        CRD_FILE,
        crd('                  x-kubernetes-validations:\n                    - rule: "self.size() > 0"\n                      optionalOldSelf: true'),
      ),
    at: 'optionalOldSelf: true',
  },
  {
    check: 'crd-accepted',
    why: 'a CRD whose rule points its finding at a field the schema lacks (fieldPath must be a valid path)',
    mutate: (c) =>
      c.write(
        CRD_FILE,
        crd('                  x-kubernetes-validations:\n                    - rule: "self.size() > 0"\n                      fieldPath: .target.host'),
      ),
    at: 'fieldPath: .target.host',
  },
  {
    check: 'crd-accepted',
    why: 'a CRD whose rule gives a reason the API server does not know',
    mutate: (c) =>
      c.write(
        CRD_FILE,
        crd('                  x-kubernetes-validations:\n                    - rule: "self.size() > 0"\n                      reason: FieldValueTooLong'),
      ),
    at: 'reason: FieldValueTooLong',
  },
  {
    check: 'crd-accepted',
    why: 'a CRD whose map list is keyed by a property that is neither required nor defaulted',
    mutate: (c) =>
      c.write(
        CRD_FILE,
        crd(
          '                ports:\n                  type: array\n                  x-kubernetes-list-type: map\n                  x-kubernetes-list-map-keys: [name]\n                  items:\n                    type: object\n                    properties:\n                      name:\n                        type: string',
        ),
      ),
    // Upstream points at the key's missing default: the gate at the key itself.
    at: '                      name:',
  },
  {
    check: 'crd-accepted',
    why: 'a CRD whose schema is not structural: a field without a type',
    mutate: (c) => c.write(CRD_FILE, crd('                hosts:\n                  items:\n                    type: string')),
    at: '                hosts:',
  },
  {
    check: 'crd-accepted',
    why: 'a CRD whose default its own schema refuses (a number for a string)',
    mutate: (c) => c.write(CRD_FILE, crd('                  default: 7')),
    at: 'default: 7',
  },
  {
    check: 'crd-accepted',
    why: "a CRD whose rule walks what replace could build (each character replaced by the whole string): over the API server's estimated cost limit",
    mutate: (c) => c.write(CRD_FILE, crd("                  x-kubernetes-validations:\n                    - rule: \"self.replace('a', self).contains('b')\"")),
    at: `- rule: "self.replace('a', self).contains('b')"`,
  },
  {
    check: 'crd-accepted',
    why: "a CRD whose schema defaults the resource's own metadata, which the API server forbids (withForbiddenDefaults: in top-level metadata)",
    mutate: (c) =>
      c.write(
        CRD_FILE,
        drillCrd('                target:\n                  type: string').replace(
          '          properties:\n            spec:\n',
          '          properties:\n            metadata:\n              type: object\n              default: {}\n            spec:\n',
        ),
      ),
    at: 'default: {}',
  },
  // ValidatingAdmissionPolicy, through its binding.
  {
    check: 'admission-policy',
    why: 'a policy the repository applies, bound with Deny, refusing the public API its two replicas',
    mutate: applyPolicy(`  variables:
    - name: replicas
      expression: "has(object.spec.replicas) ? object.spec.replicas : 1"
  validations:
    - expression: "variables.replicas <= 1"
      messageExpression: "'replicas ' + string(variables.replicas) + ' over 1'"
`),
    at: (c) => ({ file: API, line: c.read(API).split('\n').indexOf('metadata:') + 1 }),
  },
  {
    check: 'admission-policy',
    why: 'a policy whose match condition fails to evaluate on the public API, under failurePolicy Fail',
    mutate: applyPolicy(`  matchConditions:
    - name: has-tier
      expression: "object.metadata.labels.tier == 'web'"
  validations:
    - expression: "true"
`),
    at: (c) => ({ file: API, line: c.read(API).split('\n').indexOf('metadata:') + 1 }),
  },
  // Argo CD.
  {
    check: 'argocd-will-sync',
    why: "an Endpoints object, which Argo CD's default resource.exclusions never apply",
    mutate: (c) => c.write('portfolio-api/deploy/endpoints.yaml', 'apiVersion: v1\nkind: Endpoints\nmetadata:\n  name: legacy\n  namespace: portfolio\n'),
    at: 'kind: Endpoints',
    fix: "drop the excluded object, or narrow argocd-cm's resource filter so that it leaves the kind in",
  },
  {
    check: 'argocd-will-sync',
    why: "argocd-cm's resource.exclusions, set in the patch, leave NetworkPolicy out: no policy is applied, and every namespace stays open",
    mutate: (c) =>
      c.edit(ARGOCD_CM, 0, (d) => d.setIn(['data', 'resource.exclusions'], '- apiGroups:\n    - networking.k8s.io\n  kinds:\n    - NetworkPolicy\n')),
    at: (c) => ({ file: 'portfolio-api/deploy/networkpolicy.yaml', line: lineOf(c, 'portfolio-api/deploy/networkpolicy.yaml', 'kind: NetworkPolicy') }),
  },
  {
    check: 'argocd-will-sync',
    why: "argocd-cm's resource.inclusions name only the apps group for this cluster: the API's Service is never applied",
    mutate: (c) =>
      c.edit(ARGOCD_CM, 0, (d) => d.setIn(['data', 'resource.inclusions'], '- apiGroups:\n    - apps\n  clusters:\n    - https://kubernetes.default.svc\n')),
    at: (c) => ({ file: SERVICE, line: lineOf(c, SERVICE, 'kind: Service') }),
  },
  {
    check: 'argocd-will-sync',
    why: "argocd-cm's resource.exclusions give kinds as one string, which Argo CD cannot unmarshal: its settings fail to load",
    mutate: (c) => c.edit(ARGOCD_CM, 0, (d) => d.setIn(['data', 'resource.exclusions'], '- apiGroups: [""]\n  kinds: Secret\n')),
    at: (c) => ({ file: ARGOCD_CM, line: lineOf(c, ARGOCD_CM, 'resource.exclusions') }),
    fix: "write argocd-cm's resource.exclusions and resource.inclusions as Argo CD reads them: a YAML list of entries with apiGroups, kinds and clusters",
  },
  {
    check: 'argocd-will-sync',
    why: 'a ConfigMap with generateName and no name, not a hook: kubectl apply cannot use generate name',
    mutate: (c) =>
      c.write(
        'portfolio-api/deploy/run.yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: run-\n  namespace: portfolio\ndata:\n  started: "1"\n',
      ),
    at: (c) => ({ file: 'portfolio-api/deploy/run.yaml', line: lineOf(c, 'portfolio-api/deploy/run.yaml', 'generateName: run-') }),
    fix: 'give an object that is no hook a name (metadata.name), or make it a hook (argocd.argoproj.io/hook)',
  },
  {
    check: 'argocd-will-sync',
    why: 'the API synced with ServerSideApply=true and PORT set twice, which a client-side apply takes and a server-side apply cannot build',
    mutate: (c) =>
      c.edit(API, 0, (d) => {
        d.setIn(['metadata', 'annotations'], d.createNode({ 'argocd.argoproj.io/sync-options': 'ServerSideApply=true' }));
        d.addIn(['spec', 'template', 'spec', 'containers', 0, 'env'], d.createNode({ name: 'PORT', value: '3000' }));
      }),
    at: (c) => ({
      file: API,
      line:
        c
          .read(API)
          .split('\n')
          .findLastIndex((l) => l.includes('name: PORT')) + 1,
    }),
    fix: 'set each env var and container port once in a container synced server-side, and each imagePullSecret and hostAlias ip once in its pod',
  },
  {
    check: 'argocd-will-sync',
    why: "Sonarr's claim synced with Replace=true: once bound, every replace sends it without its volume, and the API server refuses it",
    mutate: (c) => c.edit('apps/media/sonarr/pvc.yaml', 0, (d) => d.setIn(['metadata', 'annotations', 'argocd.argoproj.io/sync-options'], 'Replace=true')),
    at: (c) => ({ file: 'apps/media/sonarr/pvc.yaml', line: lineOf(c, 'apps/media/sonarr/pvc.yaml', 'spec:') }),
    fix: 'sync claims and Jobs without Replace=true, or with Force=true beside it',
  },
  {
    check: 'argocd-will-sync',
    why: "a second run of the share's folders Job, no hook, synced with Replace=true: once its manifest changes, every replace sends it without its generated selector, which the API server refuses",
    mutate: (c) => {
      const [, job] = c.read(FOLDERS).split(/^---\n/m);
      const again = job!
        .replace('name: media-folders\n', 'name: media-folders-again\n')
        .replace(/ {4}argocd\.argoproj\.io\/hook(-delete-policy)?: .*\n/g, '')
        .replace('  annotations:\n', '  annotations:\n    argocd.argoproj.io/sync-options: Replace=true\n');
      c.write(FOLDERS, `${c.read(FOLDERS)}---\n${again}`);
    },
    at: (c) => ({ file: FOLDERS, line: c.read(FOLDERS).split('\n').lastIndexOf('spec:') + 1 }),
  },
  {
    check: 'argocd-will-sync',
    why: 'the API synced with ServerSideApply=true, carrying the managedFields kubectl get --show-managed-fields prints: the API server refuses the apply',
    mutate: (c) =>
      c.edit(API, 0, (d) => {
        d.setIn(['metadata', 'annotations'], d.createNode({ 'argocd.argoproj.io/sync-options': 'ServerSideApply=true' }));
        d.setIn(['metadata', 'managedFields'], d.createNode([{ manager: 'kubectl', operation: 'Apply', apiVersion: 'apps/v1' }]));
      }),
    at: 'managedFields:',
    fix: 'drop metadata.managedFields from the manifest',
  },
  {
    check: 'argocd-will-sync',
    why: 'a ConfigMap too big for a client-side apply',
    mutate: (c) =>
      c.write(
        'portfolio-api/deploy/extra.yaml',
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: portfolio\ndata:\n  blob: ${'x'.repeat(300 * 1024)}\n`,
      ),
    at: 'metadata:',
    fix: "add ServerSideApply=true to the Application syncOptions (or the object's argocd.argoproj.io/sync-options)",
  },
  {
    check: 'argocd-will-sync',
    // cert-manager's project permits the Namespace it would create: only the second owner is wrong.
    why: 'an Application creating a namespace that namespaces.yaml declares',
    mutate: (c) => c.edit('apps/platform/cert-manager/application.yaml', 0, (d) => d.addIn(['spec', 'syncPolicy', 'syncOptions'], 'CreateNamespace=true')),
    at: 'syncOptions:',
    fix: 'leave the namespace to one owner: drop CreateNamespace=true from all but one Application, or drop the Namespace object',
  },
  {
    check: 'argocd-sync-authorized',
    why: "argocd-cm turns sync impersonation on (enforced by default), and no AppProject names a destinationServiceAccounts entry: every sync fails, the portfolio API's with them",
    mutate: (c) => c.write(ARGOCD_CM, `${c.read(ARGOCD_CM)}  application.sync.impersonation.enabled: "true"\n`),
    at: (c) => ({ file: 'portfolio-api/deploy/application.yaml', line: lineOf(c, 'portfolio-api/deploy/application.yaml', 'destination:') }),
    fix: "add a destinationServiceAccounts entry for the Application's destination to its AppProject, naming a service account as <namespace>:<name> or <name> (or turn application.sync.impersonation.enforced off to sync the rest as the controller)",
  },
  {
    check: 'argocd-sync-authorized',
    why: 'the portfolio API syncs as portfolio-sync (impersonation on, not enforced), whose ClusterRole grants get and create but not patch: every later sync of the Deployment is forbidden',
    mutate: (c) => {
      c.write(ARGOCD_CM, `${c.read(ARGOCD_CM)}  application.sync.impersonation.enabled: "true"\n  application.sync.impersonation.enforced: "false"\n`);
      inProject(
        'portfolio',
        '  destinations:\n',
        '  destinationServiceAccounts:\n    - server: https://kubernetes.default.svc\n      namespace: "*"\n      defaultServiceAccount: argocd:portfolio-sync\n  destinations:\n',
      )(c);
      c.write(
        'clusters/home/portfolio-sync.yaml',
        [
          'apiVersion: rbac.authorization.k8s.io/v1',
          'kind: ClusterRole',
          'metadata:',
          '  name: portfolio-sync',
          'rules:',
          '  - apiGroups: ["*"]',
          '    resources: ["*"]',
          '    verbs: [get, create]',
          '---',
          'apiVersion: rbac.authorization.k8s.io/v1',
          'kind: ClusterRoleBinding',
          'metadata:',
          '  name: portfolio-sync',
          'roleRef:',
          '  apiGroup: rbac.authorization.k8s.io',
          '  kind: ClusterRole',
          '  name: portfolio-sync',
          'subjects:',
          '  - kind: ServiceAccount',
          '    name: portfolio-sync',
          '    namespace: argocd',
          '',
        ].join('\n'),
      );
    },
    at: (c) => ({ file: PORTFOLIO_DEPLOYMENT, line: lineOf(c, PORTFOLIO_DEPLOYMENT, 'kind: Deployment') }),
    fix: 'bind the account to a Role or ClusterRole that grants the verbs the finding names on those resources',
  },
  {
    check: 'program-api-authorized',
    why: "the sentinel writer's create rule names the apps group: the API server stores the Role, and the etcd backup's kubectl apply is refused its create of the sentinel ConfigMap, so no backup is ever taken",
    mutate: swap(
      BACKUP_RBAC,
      '  - apiGroups: [""]\n    resources: ["configmaps"]\n    verbs: ["create"]',
      '  - apiGroups: ["apps"]\n    resources: ["configmaps"]\n    verbs: ["create"]',
    ),
    at: (c) => ({ file: ETCD_BACKUP, line: lineOf(c, ETCD_BACKUP, 'serviceAccountName: etcd-backup') }),
  },
  {
    check: 'program-api-authorized',
    why: "the sentinel reader's rule names another ConfigMap: the drill's live read is refused, and it can no longer tell a newer, unpublished backup",
    mutate: swap(BACKUP_RBAC, '    resourceNames: ["backup-sentinel"]\n    verbs: ["get"]', '    resourceNames: ["backup-sentinal"]\n    verbs: ["get"]'),
    at: (c) => ({ file: RESTORE_TEST, line: lineOf(c, RESTORE_TEST, 'serviceAccountName: restore-test') }),
  },
  {
    check: 'program-api-authorized',
    why: 'the status writer may get nodes but not list them: its first read is refused, and the status page is never updated',
    mutate: swap(API_RBAC, '    resources: ["nodes"]\n    verbs: ["list"]', '    resources: ["nodes"]\n    verbs: ["get"]'),
    at: (c) => ({ file: STATUS_WRITER, line: lineOf(c, STATUS_WRITER, 'serviceAccountName: portfolio-status-writer') }),
  },
  {
    check: 'program-api-authorized',
    why: 'the etcd backup pod mounts no ServiceAccount token: its kubectl has no credentials in the pod, and the sentinel is never written',
    mutate: swap(
      ETCD_BACKUP,
      '          serviceAccountName: etcd-backup\n',
      '          serviceAccountName: etcd-backup\n          automountServiceAccountToken: false\n',
    ),
    at: (c) => ({ file: ETCD_BACKUP, line: lineOf(c, ETCD_BACKUP, 'automountServiceAccountToken: false') }),
  },
];

/** The checks that judge a custom resource as its CRD's schema and rules judge it. */
const CRD_CHECKS = new Set(['crd-accepted', 'crd-validation-rule']);
/** The checks that judge one object as the API server's validation and its CRDs judge it. */
const OBJECT_VALIDATION = new Set(['api-validation', ...CRD_CHECKS]);

/** What the API server's own validation refuses, object by object. */
export const apiValidationMutations: Mutation[] = mutations.filter((m) => m.check === 'api-validation');

/** What a CRD's schema and rules refuse of a custom resource. */
export const crdMutations: Mutation[] = mutations.filter((m) => CRD_CHECKS.has(m.check));

/** The checks of what Argo CD and the programs it deploys may do: its refusals at sync, the account it impersonates, a program's API requests. */
const AUTHORIZED = new Set(['argocd-will-sync', 'argocd-sync-authorized', 'program-api-authorized']);

/** What a sync meets beyond one object: admission policies, Pod Security, quotas and limits, the allocators, the webhooks. */
export const admissionSyncMutations: Mutation[] = mutations.filter(
  (m) => !OBJECT_VALIDATION.has(m.check) && !AUTHORIZED.has(m.check) && m.check !== 'pod-security',
);

/** What Pod Security admission refuses of a pod, at its namespace's level. */
export const podSecurityMutations: Mutation[] = mutations.filter((m) => m.check === 'pod-security');

/** What Argo CD refuses at sync, what the account it impersonates may not do, and what a program may not ask. */
export const authorizedSyncMutations: Mutation[] = mutations.filter((m) => AUTHORIZED.has(m.check));
