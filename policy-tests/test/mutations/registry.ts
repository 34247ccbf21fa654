/** Broken copies of the real repository for the checks of policy-tests/checks/registry.ts: each fails exactly its check, at its line. */
import { lineOf } from '../support/helpers.ts';
import type { Mutation } from '../support/mutation-runner.ts';
import { DEPLOYMENT } from './edits.ts';

export const registryMutations: Mutation[] = [
  {
    check: 'exemption-valid',
    why: 'an exemption suppresses nothing (stale)',
    mutate: (c) =>
      c.edit(DEPLOYMENT, 0, (d) => d.setIn(['metadata', 'annotations'], d.createNode({ 'gate.homelab-gitops/exempt-workload-hostpath': 'no longer needed' }))),
    at: (c) => ({ file: DEPLOYMENT, line: lineOf(c, DEPLOYMENT, 'exempt-workload-hostpath') }),
  },
  {
    check: 'exemption-valid',
    why: 'an exemption names a check that cannot be exempted',
    mutate: (c) =>
      c.edit(DEPLOYMENT, 0, (d) => d.setIn(['metadata', 'annotations'], d.createNode({ 'gate.homelab-gitops/exempt-workload-memory': 'because' }))),
    at: (c) => ({ file: DEPLOYMENT, line: lineOf(c, DEPLOYMENT, 'exempt-workload-memory') }),
  },
];
