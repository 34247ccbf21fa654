/**
 * Sync options Argo CD reads (P1): an option it does not read as written (a capital letter, a value it does not
 * know, an option of the other place) is silently nothing, and the sync does what the option was meant to change:
 * `ServerSideApply=True` applies client-side, `Prune=False` prunes, `CreateNamespace=true` on an object creates no
 * namespace. The same holds for compare options (`IgnoreExtranous` leaves an extraneous object to make its app
 * OutOfSync). What Argo CD reads, and where, is model/controller/sync-options.ts.
 */
import { annotationCsv, applications, SYNC_OPTIONS_ANNOTATION, syncOptions } from '../../model/argocd/argocd.ts';
import { COMPARE_OPTIONS_ANNOTATION, compareOptionProblem, syncOptionProblem } from '../../model/controller/sync-options.ts';

import type { PolicyCheck } from '../../model/checks/kit.ts';

export const argocdSyncOptionsCheck: PolicyCheck = {
  id: 'argocd-sync-options',
  description:
    "Every sync option is one Argo CD reads where it is written: an Application's syncOptions read exactly as written (no spaces), an object's argocd.argoproj.io/sync-options trimmed; Prune and Delete take false or confirm; Force=true only on an object, CreateNamespace, RespectIgnoreDifferences and PrunePropagationPolicy only in an Application; and every compare option (argocd.argoproj.io/compare-options) one Argo CD reads: IgnoreExtraneous anywhere, ServerSideDiff and IncludeMutationWebhook on an Application. Anything else is silently ignored, and the sync does what the option was meant to change (invariants P1).",
  invariants: ['P1'],
  remediation: 'spell the option as Argo CD does (case matters), or move it to where Argo CD reads it',
  reads: { kinds: ['*'], everyKind: 'any object can carry the sync-options annotation, and every Application its syncOptions' },
  exemptible: false,
  run(ctx) {
    for (const app of applications(ctx.repo))
      syncOptions(app).forEach((option, i) => {
        const problem = syncOptionProblem(option, 'application');
        if (problem) ctx.fail({ resource: app.resource, path: ['spec', 'syncPolicy', 'syncOptions', i] }, `Application ${app.name}: ${problem}`);
      });
    for (const r of ctx.resources)
      for (const option of annotationCsv(r.object, SYNC_OPTIONS_ANNOTATION)) {
        const problem = syncOptionProblem(option, 'object');
        if (problem) ctx.fail({ resource: r, path: ['metadata', 'annotations', SYNC_OPTIONS_ANNOTATION] }, `${r.kind} ${r.name}: ${problem}`);
      }
    for (const r of ctx.resources)
      for (const option of annotationCsv(r.object, COMPARE_OPTIONS_ANNOTATION)) {
        const problem = compareOptionProblem(option, r.kind === 'Application');
        if (problem) ctx.fail({ resource: r, path: ['metadata', 'annotations', COMPARE_OPTIONS_ANNOTATION] }, `${r.kind} ${r.name}: ${problem}`);
      }
  },
};
