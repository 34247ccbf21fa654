/**
 * An Application in git carries no `operation` (P1). The field is how a sync is asked for (the UI, the CLI and the
 * automated sync all set it), and the application controller runs whatever it finds there: with its own source or
 * sources, revision, or inline manifests in place of what the spec renders (controller/sync.go
 * newSyncOperationResult, and CompareAppState's local manifests at v3.5.1), its own sync options, strategy and subset
 * of resources. None of that is what the gate judged. The controller clears the field when the run ends, and the app
 * that applies the Application writes it back, so it runs again at every sync of that app.
 */
import { applications } from '../../model/argocd/argocd.ts';
import { isMap, obj } from '../../model/core/dig.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

/** What an operation's sync puts in place of the spec, in Argo CD's field names. */
function overrides(operation: unknown): string[] {
  const sync = obj(obj(operation).sync);
  if (!isMap(obj(operation).sync)) return ['no sync at all, which the controller fails as an invalid operation request'];
  const named: [string, string][] = [
    ['manifests', 'inline manifests in place of what its sources render'],
    ['source', "a source in place of the spec's"],
    ['sources', "sources in place of the spec's"],
    ['revision', 'a revision of its own'],
    ['revisions', 'revisions of their own'],
    ['syncOptions', 'sync options of its own'],
    ['syncStrategy', 'a sync strategy of its own'],
    ['resources', 'a subset of the resources'],
    ['prune', 'prune set on its own'],
  ];
  return named.filter(([key]) => sync[key] !== undefined).map(([, what]) => what);
}

export const argocdOperationCheck: PolicyCheck = {
  id: 'argocd-operation',
  description:
    "No Application in the repository carries an operation: Argo CD's controller runs it as a sync on its own terms (its own source, sources, revision or inline manifests in place of the spec's, its own options, strategy and resources), none of which the gate judged, and the app that applies the Application writes it back after each run, so it runs again at every sync (invariants P1).",
  invariants: ['P1'],
  remediation: 'drop operation: ask for a sync from the UI or the CLI (argocd app sync), or let the automated sync run; what is synced belongs in spec',
  reads: { kinds: ['Application'] },
  exemptible: false,
  run(ctx) {
    for (const app of applications(ctx.repo)) {
      const operation = app.resource.object.operation;
      if (operation === undefined || operation === null) continue;
      const what = overrides(operation);
      ctx.fail(
        { resource: app.resource, path: ['operation'], target: 'key' },
        `Application ${app.name} carries an operation, which Argo CD's controller runs as a sync${what.length ? ` with ${what.join(', ')}` : ''}: not what the gate judged, and run again each time the Application is applied`,
      );
    }
  },
};
