/** Broken copies of the real repository for the checks of policy-tests/checks/workload-hygiene/: each fails exactly its check, at its line. */
import { lineOf } from '../support/helpers.ts';
import type { Mutation } from '../support/mutation-runner.ts';
import { CONTAINER, DEPLOYMENT, MEDIA_DEPLOYMENT, PRIVILEGED_NS_DEPLOYMENT, addMountedVolume, inFile, swap } from './edits.ts';

const API_SERVICE = 'portfolio-api/deploy/service.yaml';
const GPU_PLUGIN = 'apps/platform/intel-gpu-plugin/daemonset.yaml';

export const workloadHygieneMutations: Mutation[] = [
  {
    check: 'workload-port-clash',
    why: "the TV manager's exporter also declares the manager's own port 8989: two containers of one network namespace on one port",
    mutate: (c) =>
      c.write(
        'apps/media/sonarr/deployment.yaml',
        c
          .read('apps/media/sonarr/deployment.yaml')
          .replace(
            '            - name: metrics\n              containerPort: 9707\n',
            '            - name: metrics\n              containerPort: 9707\n            - name: web\n              containerPort: 8989\n',
          ),
      ),
    at: (c) => ({ file: 'apps/media/sonarr/deployment.yaml', line: lineOf(c, 'apps/media/sonarr/deployment.yaml', '            - name: web') + 1 }),
  },
  {
    check: 'workload-rwo-rollout',
    why: 'the TV manager rolls out by surging on its ReadWriteOnce config claim: a new pod on another node waits for the volume the old one holds, for good',
    mutate: (c) =>
      c.write(
        'apps/media/sonarr/deployment.yaml',
        c.read('apps/media/sonarr/deployment.yaml').replace('  strategy:\n    type: Recreate\n', '  strategy:\n    type: RollingUpdate\n'),
      ),
    at: (c) => ({ file: 'apps/media/sonarr/deployment.yaml', line: lineOf(c, 'apps/media/sonarr/deployment.yaml', '  strategy:') }),
  },
  {
    check: 'workload-rwo-rollout',
    why: 'two replicas of the queue cleaner on one ReadWriteOnce claim: the second pod, on another node, never starts',
    mutate: (c) =>
      c.write('apps/media/cleanuparr/deployment.yaml', c.read('apps/media/cleanuparr/deployment.yaml').replace('  replicas: 1\n', '  replicas: 2\n')),
    at: (c) => ({ file: 'apps/media/cleanuparr/deployment.yaml', line: lineOf(c, 'apps/media/cleanuparr/deployment.yaml', '  replicas: 2') }),
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
    check: 'workload-volumes-mounted',
    why: "the API's status volume left mounted by nothing: STATUS_FILE reads the image's empty /status, and the status page serves its built-in snapshot for good",
    mutate: swap('portfolio-api/deploy/deployment.yaml', '            - name: status\n              mountPath: /status\n              readOnly: true\n', ''),
    at: (c) => ({ file: 'portfolio-api/deploy/deployment.yaml', line: lineOf(c, 'portfolio-api/deploy/deployment.yaml', '        - name: status') }),
  },
  {
    check: 'workload-time-zone',
    why: "the subtitle manager's TZ written Europe/Olso: no zone file holds it, Python and the C library run Bazarr in UTC, and its schedules move an hour or two",
    mutate: swap('apps/media/bazarr/deployment.yaml', 'value: "Europe/Oslo"', 'value: "Europe/Olso"'),
    at: (c) => ({ file: 'apps/media/bazarr/deployment.yaml', line: lineOf(c, 'apps/media/bazarr/deployment.yaml', 'Europe/Olso') }),
  },
  {
    check: 'workload-time-zone',
    why: "Jellyseerr's zone given as TY: nothing reads that name, and its schedules run in UTC",
    mutate: swap('apps/media/jellyseerr/deployment.yaml', '            - name: TZ\n', '            - name: TY\n'),
    at: inFile('apps/media/jellyseerr/deployment.yaml', '- name: TY'),
  },
  {
    check: 'workload-cron-deadline',
    why: "the media databases' nightly backups given 5 seconds to start: the controller checks every 10, Kubernetes documents that such a CronJob may never be scheduled, and every missed run is skipped",
    mutate: swap('apps/media/components/db-backup/cronjobs.yaml', '  startingDeadlineSeconds: 3600\n', '  startingDeadlineSeconds: 5\n'),
    at: inFile('apps/media/components/db-backup/cronjobs.yaml', 'startingDeadlineSeconds: 5'),
  },
  {
    check: 'workload-volume-size',
    why: "Sonarr's /run given sizeLimit 16 (16 bytes, where 16Mi was meant): s6 writes its first file there at start, the kubelet evicts the pod, and its replacement goes the same way",
    mutate: swap('apps/media/sonarr/deployment.yaml', '            sizeLimit: 16Mi\n', '            sizeLimit: 16\n'),
    at: inFile('apps/media/sonarr/deployment.yaml', 'sizeLimit: 16'),
  },
  {
    check: 'workload-capabilities-known',
    why: 'the GPU plugin drops "AL" for ALL: containerd asks runc for CAP_AL, which runc leaves out, so the plugin keeps every default capability',
    mutate: swap(GPU_PLUGIN, '              drop: [ALL]\n', '              drop: [AL]\n'),
    at: (c) => ({ file: GPU_PLUGIN, line: lineOf(c, GPU_PLUGIN, 'drop: [AL]') }),
  },
  {
    check: 'workload-capabilities-known',
    why: 'the VPN drops CAP_ALL: containerd writes CAP_ itself (CAP_CAP_ALL), runc leaves it out, and the VPN keeps every default capability',
    mutate: swap(PRIVILEGED_NS_DEPLOYMENT, 'drop: ["ALL"]', 'drop: ["CAP_ALL"]'),
    at: (c) => ({ file: PRIVILEGED_NS_DEPLOYMENT, line: lineOf(c, PRIVILEGED_NS_DEPLOYMENT, 'CAP_ALL') }),
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
    check: 'no-plain-secret',
    why: "the backup manifests' signing key written into the ExternalSecret's template as text: in git, and anyone can sign a forged backup",
    mutate: swap('apps/platform/backups/secrets.yaml', 'BACKUP_MANIFEST_KEY: "{{ .manifestKey }}"', 'BACKUP_MANIFEST_KEY: "x"'),
    at: inFile('apps/platform/backups/secrets.yaml', 'BACKUP_MANIFEST_KEY: "x"'),
  },
  {
    check: 'no-plain-secret',
    why: "the off-site store's access key ID written into the template as text: committed, and restic cannot authenticate with it",
    mutate: swap('apps/platform/backups/secrets.yaml', 'AWS_ACCESS_KEY_ID: "{{ .accessKey }}"', 'AWS_ACCESS_KEY_ID: "x"'),
    at: inFile('apps/platform/backups/secrets.yaml', 'AWS_ACCESS_KEY_ID: "x"'),
  },
  {
    check: 'workload-hostpath',
    why: 'a hostPath volume appears, mounted in the VPN container',
    mutate: (c) =>
      c.edit(PRIVILEGED_NS_DEPLOYMENT, 0, (d) =>
        addMountedVolume(d, { name: 'host', hostPath: { path: '/var/run' } }, { mountPath: '/host/run', readOnly: true }),
      ),
    at: (c) => ({ file: PRIVILEGED_NS_DEPLOYMENT, line: lineOf(c, PRIVILEGED_NS_DEPLOYMENT, 'hostPath:') }),
  },
  {
    check: 'workload-disruption-budget',
    why: "the API's budget asks both its replicas to stay available: no eviction of either is ever allowed, and a node drain for a Talos upgrade waits on them",
    mutate: (c) => c.write(API_SERVICE, c.read(API_SERVICE).replace('  minAvailable: 1\n', '  minAvailable: 2\n')),
    at: (c) => ({ file: API_SERVICE, line: lineOf(c, API_SERVICE, 'minAvailable: 2') }),
    fix: 'lower minAvailable below the replicas (or raise the replicas), use maxUnavailable: 1, or leave a single-replica or DaemonSet workload without a budget',
  },
  {
    check: 'workload-disruption-budget',
    why: "the API's budget loses its selector: policy/v1 reads it as selecting no pod, and a drain may take both replicas at once",
    mutate: (c) =>
      c.write(
        API_SERVICE,
        c.read(API_SERVICE).replace(/(kind: PodDisruptionBudget[\s\S]*?)  selector:\n    matchLabels:\n      app\.kubernetes\.io\/name: portfolio-api\n/, '$1'),
      ),
    at: (c) => ({ file: API_SERVICE, line: lineOf(c, API_SERVICE, 'minAvailable: 1'), within: 1 }),
    fix: "give the budget the selector of its workload's pod labels (spec.selector.matchLabels)",
  },
  {
    check: 'workload-disruption-budget',
    why: "the API's budget selects its pods by a label value a keystroke off: it guards no pod, and a drain may take both replicas at once",
    mutate: (c) =>
      c.write(
        API_SERVICE,
        c.read(API_SERVICE).replace(/(kind: PodDisruptionBudget[\s\S]*?matchLabels:\n      app\.kubernetes\.io\/name: )portfolio-api\n/, '$1porftolio-api\n'),
      ),
    at: (c) => ({ file: API_SERVICE, line: lineOf(c, API_SERVICE, 'porftolio-api') - 1 }),
    fix: "give the budget the selector of its workload's pod labels (spec.selector.matchLabels)",
  },
  {
    check: 'workload-disruption-budget',
    why: "the API's budget selects its pods by a label key a keystroke off: it guards no pod",
    mutate: (c) =>
      c.write(
        API_SERVICE,
        c
          .read(API_SERVICE)
          .replace(
            /(kind: PodDisruptionBudget[\s\S]*?matchLabels:\n      )app\.kubernetes\.io\/name: portfolio-api\n/,
            '$1app.kubernetes.io/nmae: portfolio-api\n',
          ),
      ),
    at: (c) => ({ file: API_SERVICE, line: lineOf(c, API_SERVICE, 'kubernetes.io/nmae') - 1 }),
    fix: "give the budget the selector of its workload's pod labels (spec.selector.matchLabels)",
  },
  {
    check: 'workload-disruption-budget',
    why: "the API's budget loses its minAvailable: with neither it nor maxUnavailable the disruption controller keeps no pod healthy, and a drain may take both replicas at once",
    mutate: (c) => c.write(API_SERVICE, c.read(API_SERVICE).replace('  minAvailable: 1\n', '')),
    at: (c) => ({ file: API_SERVICE, line: c.read(API_SERVICE).split('\n').lastIndexOf('spec:') + 1 }),
    fix: 'give the budget minAvailable or maxUnavailable (maxUnavailable: 1 lets a drain take one pod at a time)',
  },
  {
    check: 'workload-disruption-budget',
    why: "a second budget over the API's pods: the eviction API refuses a pod two budgets select",
    mutate: (c) =>
      c.write(
        API_SERVICE,
        `${c.read(API_SERVICE)}---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: portfolio-api-spare\n  namespace: portfolio\nspec:\n  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: portfolio-api\n`,
      ),
    at: (c) => ({ file: API_SERVICE, line: c.read(API_SERVICE).split('\n').lastIndexOf('  selector:') + 1 }),
    fix: 'give each pod one budget: narrow one selector, or drop one budget',
  },
];
