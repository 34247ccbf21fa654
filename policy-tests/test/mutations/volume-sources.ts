/** Mutations for api-validation on volume sources that are storage: what validateVolumeSource and ValidatePersistentVolumeSpec refuse. */
import type { Mutation } from '../support/mutation-runner.ts';
import { swap } from './edits.ts';

const CHECK = 'api-validation';

export const volumeSourceMutations: Mutation[] = [
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
