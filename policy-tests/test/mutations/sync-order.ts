/** Broken copies of the real repository for the checks of policy-tests/checks/sync-order.ts: each fails exactly its check, at its line. */
import type { Mutation } from '../support/mutation-runner.ts';
import { inFile, wave } from './edits.ts';

export const syncOrderMutations: Mutation[] = [
  {
    check: 'sync-order',
    why: 'the proxies in the same wave as MetalLB',
    mutate: wave('apps/platform/ingress-public/application.yaml', '-8'),
    at: inFile('apps/platform/ingress-public/application.yaml', 'requires-load-balancer'),
  },
  {
    check: 'sync-order',
    why: 'cert-manager in the same wave as the secret store its token comes from',
    mutate: wave('apps/platform/cert-manager/application.yaml', '-8'),
    at: inFile('apps/platform/cert-manager/clusterissuer.yaml', 'name: homelab'),
  },
  {
    check: 'sync-order',
    why: 'an app in the same wave as the namespaces',
    mutate: wave('apps/media/unpackerr/application.yaml', '-20'),
    at: inFile('apps/media/unpackerr/deployment.yaml', 'namespace: media'),
  },
  {
    check: 'sync-order',
    why: 'the address pool in the dry run before its CRD exists',
    mutate: (c) =>
      c.write('apps/platform/metallb/addresses.yaml', c.read('apps/platform/metallb/addresses.yaml').replace(/ +argocd\.argoproj\.io\/sync-options: .*\n/, '')),
    at: 'apiVersion: metallb.io/v1beta1',
  },
];
