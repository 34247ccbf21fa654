/** Broken copies of the real repository for the checks of policy-tests/checks/sync-order.ts: each fails exactly its check, at its line. */
import type { Mutation } from '../support/mutation-runner.ts';
import { inFile, PROJECTS, swap, wave } from './edits.ts';

export const syncOrderMutations: Mutation[] = [
  {
    check: 'sync-order',
    why: 'cert-manager written to wave "-7.5": Argo CD reads no whole number (strconv.Atoi) and syncs the app in wave 0, after the apps that need its issuers',
    mutate: wave('apps/platform/cert-manager/application.yaml', '-7.5'),
    at: inFile('apps/platform/cert-manager/application.yaml', 'sync-wave: "-7.5"'),
  },
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
    why: 'the address pool in the dry run before its CRD exists (neither it nor its app skips the dry run)',
    mutate: (c) => {
      c.write('apps/platform/metallb/addresses.yaml', c.read('apps/platform/metallb/addresses.yaml').replace(/ +argocd\.argoproj\.io\/sync-options: .*\n/, ''));
      swap('apps/platform/metallb/application.yaml', /\n +# Its ServiceMonitors sync before[^\n]*\n +- SkipDryRunOnMissingResource=true/, '')(c);
    },
    at: 'apiVersion: metallb.io/v1beta1',
  },
];

/** A Certificate that cert-manager's own app applies beside its issuer (the CRD skip keeps the dry-run rule quiet). */
const certificateBesideIssuer = (wave: string) =>
  `---\napiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: lab-wildcard\n  namespace: cert-manager\n  annotations:\n    argocd.argoproj.io/sync-wave: "${wave}"\n    argocd.argoproj.io/sync-options: SkipDryRunOnMissingResource=true\nspec:\n  secretName: lab-wildcard\n  dnsNames: [lab.example.net]\n  issuerRef:\n    kind: ClusterIssuer\n    name: letsencrypt\n`;

syncOrderMutations.push({
  check: 'sync-order',
  why: "Argo CD's kind order: a Certificate in its ClusterIssuer's wave and app, two kinds it does not rank, applied together",
  mutate: (c) => c.write('apps/platform/cert-manager/certificate.yaml', certificateBesideIssuer('1')),
  at: inFile('apps/platform/cert-manager/certificate.yaml', 'name: letsencrypt'),
});

syncOrderMutations.push({
  check: 'sync-order',
  why: "the portfolio project in wave 5, after its Application's wave 0: the root app waits for an app Argo CD will not reconcile without its project",
  mutate: (c) => c.edit(PROJECTS, 4, (d) => d.setIn(['metadata', 'annotations', 'argocd.argoproj.io/sync-wave'], '5')),
  at: inFile('portfolio-api/deploy/application.yaml', 'project: portfolio'),
});
