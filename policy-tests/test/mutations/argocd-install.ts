/** Broken copies of the real repository for the checks of policy-tests/checks/argocd-install.ts: each fails exactly its check, at its line. */
import { lineOf, type RepoCopy } from '../support/helpers.ts';
import type { Mutation } from '../support/mutation-runner.ts';
import { swap, PORTFOLIO_APP, ROOT_APP, ARGOCD_CM, TOOLS, KUSTOMIZATION } from './edits.ts';

/** Where argocd-app-health points at the health script for Applications: its key in the argocd-cm patch. */
const atHealthScript = (c: RepoCopy) => ({ file: ARGOCD_CM, line: lineOf(c, ARGOCD_CM, 'resource.customizations.health.argoproj.io_Application') });

/** A health script for Deployments, which argocd-health-scripts runs on each Deployment, and where it points. */
const DEPLOYMENT_HEALTH = 'resource.customizations.health.apps_Deployment';
const atDeploymentHealth = (c: RepoCopy) => ({ file: ARGOCD_CM, line: lineOf(c, ARGOCD_CM, DEPLOYMENT_HEALTH) });

export const argocdInstallMutations: Mutation[] = [
  {
    check: 'argocd-root-discovery',
    why: 'the root app stops including application.yaml files',
    mutate: (c) => c.edit(ROOT_APP, 0, (d) => d.setIn(['spec', 'source', 'directory', 'include'], '{clusters/home/*.yaml}')),
    at: () => ({ file: PORTFOLIO_APP, line: 1 }),
  },
  {
    check: 'argocd-root-discovery',
    why: 'a Helm values file sits in a directory source that would apply it',
    mutate: (c) => c.write('portfolio-api/deploy/values.yaml', 'replicaCount: 2\n'),
    at: () => ({ file: 'portfolio-api/deploy/values.yaml', line: 1 }),
  },
  {
    check: 'argocd-root-discovery',
    why: "a local chart's template sits under a recursive directory source that would apply it as it is",
    mutate: (c) => {
      c.edit('apps/media/unpackerr/application.yaml', 0, (d) => d.setIn(['spec', 'source', 'directory', 'recurse'], true));
      c.write(
        'apps/media/unpackerr/chart/templates/cm.yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extras\ndata:\n  greeting: {{ .Values.greeting | quote }}\n',
      );
    },
    at: () => ({ file: 'apps/media/unpackerr/chart/templates/cm.yaml', line: 1 }),
  },
  {
    check: 'argocd-app-health',
    why: 'no health for Applications, so the waves gate nothing',
    mutate: (c) => c.edit(ARGOCD_CM, 0, (d) => d.deleteIn(['data', 'resource.customizations.health.argoproj.io_Application'])),
    at: 'data:\n',
  },
  {
    check: 'argocd-app-health',
    why: "the Applications' health script loses an `end`: Argo CD cannot run it, and takes no child app's health from it",
    mutate: (c) => c.write(ARGOCD_CM, c.read(ARGOCD_CM).replace('      end\n    end\n', '      end\n')),
    at: atHealthScript,
  },
  {
    check: 'argocd-app-health',
    why: "the Applications' health script says Healthy whatever the child app says: the waves wait on nothing",
    mutate: (c) =>
      c.edit(ARGOCD_CM, 0, (d) => d.setIn(['data', 'resource.customizations.health.argoproj.io_Application'], 'hs = {}\nhs.status = "Healthy"\nreturn hs\n')),
    at: atHealthScript,
  },
  {
    check: 'argocd-app-health',
    why: 'resources tracked by the label charts set themselves',
    mutate: (c) => c.edit(ARGOCD_CM, 0, (d) => d.setIn(['data', 'application.resourceTrackingMethod'], 'label')),
    at: 'data:\n',
  },
  {
    check: 'argocd-health-scripts',
    why: "a health script for Deployments loses an `end`: Argo CD cannot load it, and every Deployment's health is Unknown",
    mutate: (c) =>
      c.edit(ARGOCD_CM, 0, (d) => d.setIn(['data', DEPLOYMENT_HEALTH], 'hs = {}\nif obj.status ~= nil then\n  hs.status = "Healthy"\nreturn hs\n')),
    at: atDeploymentHealth,
  },
  {
    check: 'argocd-health-scripts',
    why: 'a health script for Deployments returns a status Argo CD does not know (Healty): every Deployment is Unknown',
    mutate: (c) => c.edit(ARGOCD_CM, 0, (d) => d.setIn(['data', DEPLOYMENT_HEALTH], 'hs = {}\nhs.status = "Healty"\nreturn hs\n')),
    at: atDeploymentHealth,
  },
  {
    check: 'argocd-sync-policy',
    why: 'argocd-cm names a customization type Argo CD does not know (ignoreDiferences): it loads no resource overrides, and compares no Application',
    mutate: (c) =>
      c.edit(ARGOCD_CM, 0, (d) => d.setIn(['data', 'resource.customizations.ignoreDiferences.apps_Deployment'], 'jsonPointers: [/spec/replicas]\n')),
    at: (c) => ({ file: ARGOCD_CM, line: lineOf(c, ARGOCD_CM, 'ignoreDiferences') }),
  },
  {
    check: 'argocd-render-tools',
    why: 'the gate on another kustomize than the deployed Argo CD',
    mutate: swap(TOOLS, 'kustomize: 5.8.1', 'kustomize: 5.7.0'),
    at: 'kustomize: 5.7.0',
  },
  {
    check: 'argocd-render-tools',
    why: 'Argo CD moved to another release without its tool versions',
    // The lock moves with it, as npm run charts:pull would record the new release's manifest.
    mutate: (c) => {
      swap(KUSTOMIZATION, 'argo-cd/v3.5.1/', 'argo-cd/v3.4.4/')(c);
      swap('charts.lock.json', 'argo-cd/v3.5.1/', 'argo-cd/v3.4.4/')(c);
    },
    at: 'argo-cd/v3.4.4/',
  },
];
