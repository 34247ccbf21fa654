/** Broken copies of the real repository for the platform checks. */
import type { Mutation } from './mutation-runner.ts';
import type { RepoCopy } from './helpers.ts';

const ARGOCD_CM = 'apps/platform/argocd/argocd-cm.yaml';
const TOOLS = 'apps/platform/argocd/facts/render-tools.yaml';
const KUSTOMIZATION = 'apps/platform/argocd/kustomization.yaml';
const swap = (file: string, from: string, to: string) => (c: RepoCopy) => {
  if (!c.read(file).includes(from)) throw new Error(`${from} not in ${file}`);
  c.write(file, c.read(file).replace(from, to));
};

export const platformMutations: Mutation[] = [
  { check: 'argocd-app-health', why: 'no health for Applications, so the waves gate nothing', mutate: (c) => c.edit(ARGOCD_CM, 0, (d) => d.deleteIn(['data', 'resource.customizations.health.argoproj.io_Application'])), at: 'data:\n' },
  { check: 'argocd-app-health', why: 'resources tracked by the label charts set themselves', mutate: (c) => c.edit(ARGOCD_CM, 0, (d) => d.setIn(['data', 'application.resourceTrackingMethod'], 'label')), at: 'data:\n' },
  { check: 'argocd-render-tools', why: 'the gate on another kustomize than the deployed Argo CD', mutate: swap(TOOLS, 'kustomize: 5.8.1', 'kustomize: 5.7.0'), at: 'kustomize: 5.7.0' },
  { check: 'argocd-render-tools', why: 'Argo CD moved to another release without its tool versions', mutate: swap(KUSTOMIZATION, 'argo-cd/v3.5.1/', 'argo-cd/v3.4.4/'), at: 'argo-cd/v3.4.4/' },
];
