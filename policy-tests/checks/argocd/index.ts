/** Argo CD itself: the Applications it syncs, and the install that runs it. */
import type { PolicyCheck } from '../kit.ts';
import { argocdChecks } from './argocd.ts';
import { argocdInstallChecks } from './install.ts';
import { argocdRepoServerChecks } from './repo-server.ts';

export const argocdAreaChecks: PolicyCheck[] = [...argocdChecks, ...argocdInstallChecks, ...argocdRepoServerChecks];
