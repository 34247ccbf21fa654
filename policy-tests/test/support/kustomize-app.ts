/**
 * The web app of the kustomize tests (render-kustomize*.test.ts): a kustomization with a Deployment and a component
 * beside it, its Application's kustomize options as given, and argocd-cm's build options as the repository sets them.
 */
import { repoApp, fixtureRepo, type FixtureRepo } from '../../../test-support/render-fixtures.ts';

/** The web Application with these lines under its source's `kustomize:`. */
export const kustomizeApp = (kustomize: string) => repoApp('web', `    path: apps/web\n    kustomize:\n${kustomize}`, '', 'web');

/** argocd-cm's kustomize.buildOptions, as the repository's argocd-cm patch sets them for every build. */
export const withBuildOptions = (repo: FixtureRepo, options: string) =>
  repo.write(
    'apps/platform/argocd/patches/argocd-cm.yaml',
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\n  namespace: argocd\ndata:\n  kustomize.buildOptions: ${options}\n`,
  );

/** A fixture repository holding the web app, its Application's kustomize options these lines. */
export function webRepo(kustomize: string): FixtureRepo {
  const repo = fixtureRepo();
  repo.write(
    'apps/web/kustomization.yaml',
    'resources:\n  - deployment.yaml\nimages:\n  - name: ghcr.io/example/web\n    newTag: 1.0.0\ncommonLabels:\n  team: web\n',
  );
  repo.write(
    'apps/web/deployment.yaml',
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: ghcr.io/example/web\n',
  );
  repo.write('apps/components/debug/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - cm.yaml\n');
  repo.write('apps/components/debug/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: debug\ndata:\n  level: trace\n');
  repo.write('apps/web/application.yaml', kustomizeApp(kustomize));
  return repo;
}
