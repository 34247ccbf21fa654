/** Broken copies of the real repository for the checks of policy-tests/checks/sync-health.ts: each fails exactly its check, at its line. */
import { lineOf } from '../support/helpers.ts';
import type { Mutation } from '../support/mutation-runner.ts';
import { API, inFile, swap } from './edits.ts';

/** The cluster's default class made to wait for a claim's first consumer, as local-path and many CSI drivers do. */
const waitForFirstConsumer = swap('apps/platform/rook-ceph-cluster/classes.yaml', 'volumeBindingMode: Immediate', 'volumeBindingMode: WaitForFirstConsumer');
const SONARR = 'apps/media/sonarr';
const PRIVATE_VALUES = 'apps/platform/ingress-private/values.yaml';

export const syncHealthMutations: Mutation[] = [
  {
    check: 'sync-first-consumer',
    why: "Sonarr's claim waits for its first consumer, and Sonarr syncs a wave after it: Argo CD waits for the claim forever",
    mutate: (c) => {
      waitForFirstConsumer(c);
      swap(`${SONARR}/deployment.yaml`, 'metadata:\n  name: sonarr\n', 'metadata:\n  name: sonarr\n  annotations:\n    argocd.argoproj.io/sync-wave: "1"\n')(c);
    },
    at: inFile(`${SONARR}/pvc.yaml`, 'storageClassName: ceph-block'),
  },
  {
    check: 'sync-suspended',
    why: "the API's Deployment is paused: Argo CD counts it Suspended, and the root app's later waves wait forever",
    mutate: (c) => c.edit(API, 0, (d) => d.setIn(['spec', 'paused'], true)),
    at: inFile(API, 'paused: true'),
  },
  {
    check: 'sync-suspended',
    why: "the media folders' PreSync Job is suspended: the hook never runs, and every sync of the media storage waits on it",
    mutate: swap('apps/media/storage/folders.yaml', 'spec:\n  backoffLimit: 2', 'spec:\n  suspend: true\n  backoffLimit: 2'),
    at: inFile('apps/media/storage/folders.yaml', 'suspend: true'),
  },
  {
    check: 'sync-ingress-status',
    why: 'the private Traefik publishes no status to its Ingresses: Argo CD counts each Progressing, and the media apps never finish syncing',
    mutate: (c) => c.edit(PRIVATE_VALUES, 0, (d) => d.setIn(['providers', 'kubernetesIngress', 'publishedService'], d.createNode({ enabled: false }))),
    at: (c) => ({ file: PRIVATE_VALUES, line: lineOf(c, PRIVATE_VALUES, 'publishedService:') + 1 }),
  },
];
