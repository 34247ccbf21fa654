/** The sync options Argo CD reads, and where (controller/sync.go, state.go; gitops-engine sync_context.go). */
import { describe, expect, it } from 'vitest';
import { compareOptionProblem, syncOptionProblem } from '../../model/controller/sync-options.ts';

describe('sync options as Argo CD reads them', () => {
  it.each([
    ['ServerSideApply=true', 'application'],
    ['CreateNamespace=true', 'application'],
    ['PrunePropagationPolicy=orphan', 'application'],
    ['Prune=confirm', 'application'],
    ['Delete=false', 'object'],
    ['Force=true', 'object'],
    ['ServerSideApply=false', 'object'],
    ['Validate=true', 'application'],
    ['  Replace=true ', 'object'],
  ] as const)('reads %s in an %s', (option, place) => {
    expect(syncOptionProblem(option, place)).toBeUndefined();
  });

  it.each([
    ['ServerSideApply=True', 'application', 'Argo CD reads no sync option ServerSideApply=True (did you mean "ServerSideApply=true"?)'],
    ['Prune=False', 'object', 'Prune=False: Argo CD reads only Prune=false and Prune=confirm'],
    ['CreateNamespace=true', 'object', "CreateNamespace=true is read only in an Application's spec.syncPolicy.syncOptions"],
    [
      'Force=true',
      'application',
      "Force=true is read only on an object's argocd.argoproj.io/sync-options (an automated sync takes no Force from an Application)",
    ],
    [' CreateNamespace=true', 'application', `" CreateNamespace=true" carries spaces, and an Application's options are read untrimmed`],
    ['Retry=true', 'application', 'Argo CD reads no sync option Retry=true'],
  ] as const)('reads nothing of %s in an %s', (option, place, problem) => {
    expect(syncOptionProblem(option, place)).toBe(problem);
  });

  it('reads compare options as controller/state.go reads them: IgnoreExtraneous anywhere, the diff options on an Application', () => {
    expect([compareOptionProblem('IgnoreExtraneous', false), compareOptionProblem(' ServerSideDiff=true', true)]).toEqual([undefined, undefined]);
    expect(compareOptionProblem('ServerSideDiff=true', false)).toBe('ServerSideDiff=true is read only on an Application');
    expect(compareOptionProblem('IgnoreExtranous', false)).toBe('Argo CD reads no compare option IgnoreExtranous (did you mean "IgnoreExtraneous"?)');
  });
});
