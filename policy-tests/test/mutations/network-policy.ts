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
    why: 'the public proxy is allowed in from a namespace that does not exist (the defect this check found on main)',
    mutate: swap(POLICY, 'kubernetes.io/metadata.name: ingress', 'kubernetes.io/metadata.name: gateway'),
    at: (c) => ({ file: POLICY, line: inFile(POLICY, 'kubernetes.io/metadata.name: gateway')(c).line - 2 }),
  },
  {
    check: 'network-policy-peers',
    why: "the metrics scraper's namespace is misspelt",
    mutate: swap(POLICY, 'kubernetes.io/metadata.name: monitoring', 'kubernetes.io/metadata.name: monitorng'),
    at: (c) => ({ file: POLICY, line: inFile(POLICY, 'kubernetes.io/metadata.name: monitorng')(c).line - 2 }),
  },
  {
    check: 'network-policy-ports',
    why: "the proxy is let in on the Service's port 80, not the pod's http port",
    mutate: swap(POLICY, '      ports:\n        - port: http', '      ports:\n        - port: 80'),
    at: inFile(POLICY, '        - port: 80'),
  },
  {
    check: 'network-policy-ports',
    why: 'the metrics scraper is let in on a port name the container does not have',
    mutate: swap(POLICY, '        - port: metrics', '        - port: prometheus'),
    at: inFile(POLICY, '        - port: prometheus'),
  },
];
