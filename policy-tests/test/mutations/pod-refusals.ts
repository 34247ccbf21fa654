/** Mutations for what the API server (validateVolumeSource, ValidatePersistentVolumeSpec, ValidateVolumeMounts) and the kubelet (verifyRunAsNonRoot) refuse of a pod spec or a PersistentVolume. */
import type { Mutation } from '../support/mutation-runner.ts';
import { swap } from './edits.ts';

const CHECK = 'api-validation';

export const volumeSourceMutations: Mutation[] = [
  {
    check: CHECK,
    why: "the status writer's CronJob left with an empty container list: the schema asks only for the field, validateContainers requires a container",
    mutate: (c) =>
      c.write(
        'portfolio-api/deploy/status-writer.yaml',
        c.read('portfolio-api/deploy/status-writer.yaml').replace(/( +)containers:\n(?:\1  [^\n]*\n|\1- [^\n]*\n|\1    [^\n]*\n)+/, '$1containers: []\n'),
      ),
    at: 'containers: []',
  },
  {
    check: CHECK,
    why: "the etcd backup's scratch emptyDir limited to -4Gi: the schema takes any quantity, validateVolumeSource refuses one below zero",
    mutate: swap('apps/platform/backups/etcd-backup.yaml', '              sizeLimit: 4Gi\n', '              sizeLimit: -4Gi\n'),
    at: 'sizeLimit: -4Gi',
  },
  {
    check: CHECK,
    why: "Tdarr's config volume names an empty claim: validatePersistentClaimVolumeSource requires claimName",
    mutate: swap('apps/media/tdarr/deployment.yaml', /claimName: \S+/, 'claimName: ""'),
    at: 'claimName: ""',
  },
  {
    check: CHECK,
    why: "the VPN pod's NFS PersistentVolume given a relative export path: validateNFSVolumeSource wants an absolute one",
    mutate: swap('apps/media/gluetun/storage.yaml', 'path: /volume1/data', 'path: volume1/data'),
    at: 'path: volume1/data',
  },
  {
    check: CHECK,
    why: 'the backups PersistentVolume left without its capacity: ValidatePersistentVolumeSpec requires spec.capacity',
    mutate: swap('apps/platform/backups/storage.yaml', /  capacity:\n    storage: \S+\n/, ''),
    at: 'spec:\n',
  },
];

/** ValidateVolumeMounts: a mount's name and path, empty, are refused as missing. */
export const volumeMountMutations: Mutation[] = [
  {
    check: CHECK,
    why: "the GPU plugin's CDI mount given an empty mountPath: the schema takes the empty string, ValidateVolumeMounts requires one",
    mutate: swap('apps/platform/intel-gpu-plugin/daemonset.yaml', 'mountPath: /var/run/cdi', 'mountPath: ""'),
    at: 'mountPath: ""',
  },
];

/** kubelet-admits: a non-root policy beside user 0, which the kubelet refuses to create. */
export const nonRootMutations: Mutation[] = [
  {
    check: 'kubelet-admits',
    why: "Sonarr's pod set to user 0 beside its runAsNonRoot: the kubelet refuses each container (CreateContainerConfigError), and none starts",
    mutate: swap('apps/media/sonarr/deployment.yaml', '        runAsUser: 1000\n', '        runAsUser: 0\n'),
    at: 'runAsUser: 0',
  },
];
