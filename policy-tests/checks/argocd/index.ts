/** Argo CD itself: the Applications it syncs, and the install that runs it. */
import { type PolicyCheck, type Area, staticArea } from '../../model/checks/kit.ts';
import { argocdChecks } from './argocd.ts';
import { argocdAutoscaledReplicasCheck } from './autoscaled.ts';
import { argocdDestinationCheck } from './destination.ts';
import { argocdHealthScriptsCheck } from './health-scripts.ts';
import { argocdHooksCheck } from './hooks.ts';
import { argocdInstallChecks } from './install.ts';
import { argocdManagedNamespaceCheck } from './managed-namespace.ts';
import { argocdOperationCheck } from './operation.ts';
import { argocdCascadeCheck, argocdPruneCheck } from './prune.ts';
import { argocdRepoServerChecks } from './repo-server.ts';
import { argocdSyncOptionsCheck } from './sync-options.ts';
import { argocdSyncPolicyCheck } from './sync-policy.ts';
import { argocdSyncWindowsCheck } from './sync-windows.ts';

export const argocdAreaChecks: PolicyCheck[] = [
  ...argocdChecks,
  argocdSyncPolicyCheck,
  argocdDestinationCheck,
  argocdPruneCheck,
  argocdCascadeCheck,
  argocdHooksCheck,
  argocdSyncWindowsCheck,
  argocdSyncOptionsCheck,
  argocdManagedNamespaceCheck,
  argocdOperationCheck,
  argocdAutoscaledReplicasCheck,
  ...argocdInstallChecks,
  argocdHealthScriptsCheck,
  ...argocdRepoServerChecks,
];

export const argocdArea: Area = staticArea('argocd', argocdAreaChecks);
