/** Broken copies of the real repository for the checks of policy-tests/checks/network-policy.ts: each fails exactly its check, at its line. */
import type { Mutation } from '../support/mutation-runner.ts';
import { inFile, swap } from './edits.ts';

const POLICY = 'portfolio-api/deploy/networkpolicy.yaml';

export const networkPolicyMutations: Mutation[] = [
  {
    check: 'network-policy-selects',
    why: "the public API's policy selects a label its pods do not carry",
    mutate: swap(
      POLICY,
      '  podSelector:\n    matchLabels:\n      app.kubernetes.io/name: portfolio-api',
      '  podSelector:\n    matchLabels:\n      app.kubernetes.io/name: portfolio',
    ),
    at: inFile(POLICY, '  podSelector:'),
  },
  {
    check: 'network-policy-peers',
    why: "the DNS allowance names a namespace that does not exist (as the proxy's allowance once named 'gateway')",
    mutate: swap(POLICY, 'kubernetes.io/metadata.name: kube-system', 'kubernetes.io/metadata.name: kube-sytem'),
    at: (c) => ({ file: POLICY, line: inFile(POLICY, 'kubernetes.io/metadata.name: kube-sytem')(c).line - 2 }),
  },
  {
    check: 'network-policy-peers',
    why: "the metrics scraper's namespace is misspelt",
    mutate: swap(POLICY, 'kubernetes.io/metadata.name: monitoring', 'kubernetes.io/metadata.name: monitorng'),
    at: (c) => ({ file: POLICY, line: inFile(POLICY, 'kubernetes.io/metadata.name: monitorng')(c).line - 2 }),
  },
  {
    check: 'network-policy-ports',
    why: 'the metrics scraper is let in on a port number the container does not listen on',
    mutate: swap(POLICY, '        - port: metrics', '        - port: 9090'),
    at: inFile(POLICY, '        - port: 9090'),
  },
  {
    check: 'network-policy-ports',
    why: 'the metrics scraper is let in on a port name the container does not have',
    mutate: swap(POLICY, '        - port: metrics', '        - port: prometheus'),
    at: inFile(POLICY, '        - port: prometheus'),
  },
  {
    check: 'network-policy-ingress-path',
    why: "the API's policy lets the proxy's rule in from the monitoring namespace instead: the public route is blocked at the pod",
    mutate: swap(POLICY, 'kubernetes.io/metadata.name: ingress', 'kubernetes.io/metadata.name: monitoring'),
    at: (c) => ({ file: 'portfolio-api/deploy/ingress.yaml', line: inFile('portfolio-api/deploy/ingress.yaml', '              service:')(c).line }),
  },
];
