/** Broken copies of the real repository for the checks of policy-tests/checks/repository.ts: each fails exactly its check, at its line. */
import { lineOf, type RepoCopy } from '../support/helpers.ts';
import type { Mutation } from '../support/mutation-runner.ts';
import { swap } from './edits.ts';

export const repositoryMutations: Mutation[] = [
  {
    check: 'duplicate-resource',
    why: 'the Service is declared twice',
    mutate: (c) => c.write('portfolio-api/deploy/service-copy.yaml', c.read('portfolio-api/deploy/service.yaml').split('---')[0]!),
    at: (c) => ({ file: 'portfolio-api/deploy/service-copy.yaml', line: lineOf(c, 'portfolio-api/deploy/service-copy.yaml', '  name: portfolio-api') }),
  },
  {
    check: 'cluster-facts',
    why: 'the node count is not a number',
    mutate: (c) => c.edit('clusters/home/cluster-facts.yaml', 0, (d) => d.setIn(['data', 'nodeCount'], 'six')),
    at: (c) => ({ file: 'clusters/home/cluster-facts.yaml', line: lineOf(c, 'clusters/home/cluster-facts.yaml', '  nodeCount:') }),
  },
  {
    check: 'cluster-facts',
    why: "the vault's daily request budget written under a misspelt key (secretStroes): nothing reads it, and the refresh intervals are held to no budget",
    mutate: swap('clusters/home/cluster-facts.yaml', '  secretStores: |', '  secretStroes: |'),
    at: (c) => ({ file: 'clusters/home/cluster-facts.yaml', line: lineOf(c, 'clusters/home/cluster-facts.yaml', '  secretStroes:') }),
  },
  {
    check: 'cluster-facts',
    why: "the Pod Security defaults pin enforce to 1.24, which is no version the API server's PodSecurityConfiguration reads (v1.24)",
    mutate: swap('clusters/home/cluster-facts.yaml', 'defaults: {enforce: baseline,', 'defaults: {enforce: baseline, enforce-version: "1.24",'),
    at: (c) => ({ file: 'clusters/home/cluster-facts.yaml', line: lineOf(c, 'clusters/home/cluster-facts.yaml', '  podSecurity:') }),
  },
  {
    check: 'cluster-facts',
    why: 'the node network lists two control-plane nodes where the facts count three',
    mutate: swap('clusters/home/cluster-facts.yaml', 'controlPlane: [192.168.1.11, 192.168.1.12, 192.168.1.13]', 'controlPlane: [192.168.1.11, 192.168.1.12]'),
    at: (c) => ({ file: 'clusters/home/cluster-facts.yaml', line: lineOf(c, 'clusters/home/cluster-facts.yaml', '  nodeNetwork:') }),
  },
  {
    check: 'cluster-facts',
    why: 'a pod network laid inside the Service network: a Service address could be a pod, and traffic for one is routed to the other',
    mutate: swap('clusters/home/cluster-facts.yaml', '    pods: 10.244.0.0/16', '    pods: 10.96.0.0/16'),
    at: (c) => ({ file: 'clusters/home/cluster-facts.yaml', line: lineOf(c, 'clusters/home/cluster-facts.yaml', '  nodeNetwork:') }),
  },
  {
    check: 'cluster-facts',
    why: 'the Kubernetes version is malformed (no patch): a finding, never a silent fall back to the bundled minor',
    mutate: (c) => {
      c.edit('clusters/home/cluster-facts.yaml', 0, (d) => d.setIn(['data', 'kubernetesVersion'], '1.36'));
      c.edit('monitoring/metrics-catalog/cadvisor-v0.56.2.yaml', 0, (d) => d.setIn(['pin', 'contains'], 'kubernetesVersion: "1.36'));
    },
    at: (c) => ({ file: 'clusters/home/cluster-facts.yaml', line: lineOf(c, 'clusters/home/cluster-facts.yaml', '  kubernetesVersion:') }),
  },
  {
    check: 'cluster-facts',
    why: 'a fork on Talos 1.12, whose row says it runs Kubernetes up to 1.35: talosctl upgrade-k8s refuses 1.36',
    mutate: swap('clusters/home/cluster-facts.yaml', '  talosVersion: "v1.13.9"\n', '  talosVersion: "v1.12.6"\n'),
    at: (c) => ({ file: 'clusters/home/cluster-facts.yaml', line: lineOf(c, 'clusters/home/cluster-facts.yaml', '  kubernetesVersion:') }),
  },
  {
    check: 'cluster-facts',
    why: 'the cluster runs a Kubernetes minor the bundled schemas do not describe',
    mutate: (c) => {
      c.edit('clusters/home/cluster-facts.yaml', 0, (d) => d.setIn(['data', 'kubernetesVersion'], '1.31.2'));
      // The kubelet's cAdvisor entry is pinned to the cluster's minor; re-pinned here, so only the facts are wrong.
      c.edit('monitoring/metrics-catalog/cadvisor-v0.56.2.yaml', 0, (d) => d.setIn(['pin', 'contains'], 'kubernetesVersion: "1.31.'));
    },
    at: (c) => ({ file: 'clusters/home/cluster-facts.yaml', line: lineOf(c, 'clusters/home/cluster-facts.yaml', '  kubernetesVersion:') }),
  },
  {
    check: 'cluster-facts',
    why: 'a talosUpgrades row without the Talos its installer takes nodes below: the rendered diff could not judge a Talos move to that minor',
    mutate: swap('clusters/home/cluster-facts.yaml', '      host: {from: 1.11.0, below: 1.15.0}\n', '      host: {from: 1.11.0}\n'),
    at: (c) => ({ file: 'clusters/home/cluster-facts.yaml', line: lineOf(c, 'clusters/home/cluster-facts.yaml', '  talosUpgrades:') }),
  },
  {
    check: 'checkout-no-code-or-state',
    why: "a pull request's planted package folder, with a warm-start store beside the package it shadows (the attack that passed a privileged Deployment)",
    mutate: (c) => {
      c.write('policy-tests/node_modules/yaml/package.json', '{ "name": "yaml", "main": "../../../node_modules/yaml/dist/index.js" }\n');
      c.write('policy-tests/node_modules/.cache/homelab-gate/parsed.journal', 'key\t{"kind":"Deployment"}\n');
    },
    at: () => ({ file: 'policy-tests/node_modules/yaml/package.json', line: 1 }),
  },
  {
    check: 'manifest-roots',
    why: 'a top-level folder the gate does not read: z-unread-area/chess/application.yaml, which the root app would still apply, with the manifest it applies',
    mutate: (c) => unreadArea(c),
    at: () => ({ file: 'z-unread-area/chess/application.yaml', line: 1 }),
  },
  {
    check: 'manifest-roots',
    why: "the same app's manifest, z-unread-area/chess/config.yaml: Argo CD applies it (it reads any path of the checkout), said at the file",
    mutate: (c) => unreadArea(c),
    at: () => ({ file: 'z-unread-area/chess/config.yaml', line: 1 }),
  },
  {
    check: 'manifest-roots',
    why: "a component an app's kustomization reaches beyond the roots, z-shared/note/: kustomize builds its manifest into the app, said at that file",
    mutate: (c) => {
      c.write(
        'apps/media/tautulli/kustomization.yaml',
        c.read('apps/media/tautulli/kustomization.yaml').replace('components:\n', 'components:\n  - ../../../z-shared/note\n'),
      );
      c.write('z-shared/note/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - note.yaml\n');
      c.write('z-shared/note/note.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: note\n  namespace: media\n');
    },
    at: () => ({ file: 'z-shared/note/note.yaml', line: 1 }),
  },
];

/** An app in a top-level folder the gate does not read, with the manifest it applies. */
function unreadArea(c: RepoCopy): void {
  c.write(
    'z-unread-area/chess/application.yaml',
    c
      .read('apps/platform/backups/application.yaml')
      .replace('name: backups\n', 'name: chess\n')
      .replace('path: apps/platform/backups', 'path: z-unread-area/chess'),
  );
  c.write('z-unread-area/chess/config.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: chess\n  namespace: backups\n');
}
