/**
 * What Argo CD's repo-server reads that the gate will not take as written:
 * the source parameter files it merges into a source, the files its
 * directory walk applies that a reviewer would not see or the gate cannot
 * evaluate (dot-names, jsonnet), and sources it hands to a plugin or
 * refuses. Each finding says what Argo CD would have done.
 */
import { applications, checkoutTree, filesOfSource, isThisRepo, normalizeSourcePath, sourceType } from '../../model/argocd/argocd.ts';
import { appliedFileRefusal, explicitTool, sourceParameterFiles } from '../../model/argocd/repo-server.ts';
import type { PolicyCheck } from '../kit.ts';
import { APP_KINDS } from './argocd.ts';

/** Per checkout, its paths as a set: the parameter files are looked up by name. */
const pathSets = new WeakMap<readonly string[], ReadonlySet<string>>();
const pathSet = (paths: readonly string[]) => {
  let set = pathSets.get(paths);
  if (!set) pathSets.set(paths, (set = new Set(paths)));
  return set;
};

export const argocdRepoServerChecks: PolicyCheck[] = [
  {
    id: 'argocd-applied-files',
    description:
      "What Argo CD's repo-server applies is what the gate judges: no source parameter file (.argocd-source.yaml, .argocd-source-<app>.yaml) rewrites a source, no hidden (dot-named) or jsonnet file is applied by a directory source, and no source needs a plugin or names two tools (invariants P1).",
    invariants: ['P1'],
    remediation:
      'put tool options in the Application itself, give hidden manifests a plain name, write jsonnet output as YAML, and give each source one tool block Argo CD renders without a plugin',
    reads: { kinds: APP_KINDS },
    exemptible: false,
    run(ctx) {
      const { repo } = ctx;
      const paths = pathSet(checkoutTree(repo));
      const refused = new Set<string>();
      for (const app of applications(repo)) {
        for (const source of app.sources) {
          if (source.chart !== undefined || source.path === undefined || !isThisRepo(repo, source)) continue;
          const appPath = normalizeSourcePath(source.path);
          for (const file of sourceParameterFiles(paths, appPath, app.name)) {
            if (refused.has(file)) continue;
            refused.add(file);
            ctx.fail(
              { file },
              `Argo CD's repo-server merges ${file} into the source of Application ${app.name} before it picks the tool and renders (any option but repoURL, path, chart and targetRevision); the gate does not merge source overrides, so what it sets would reach the cluster unjudged: move the options into ${app.resource.file}`,
            );
          }
          const type = sourceType(repo, source);
          if (type === 'conflicting') ctx.fail({ resource: app.resource, path: source.at }, `Argo CD refuses this source: ${explicitTool(source).error}`);
          if (type === 'plugin')
            ctx.fail(
              { resource: app.resource, path: [...source.at, 'plugin'] },
              `Argo CD hands ${source.path} to a config management plugin, which the gate cannot run: what it yields would reach the cluster unjudged`,
            );
          if (type !== 'directory') continue;
          for (const file of filesOfSource(repo, source)) {
            const why = appliedFileRefusal(file);
            if (!why || refused.has(file)) continue;
            refused.add(file);
            ctx.fail({ file }, `${why} (Application ${app.name})`);
          }
        }
      }
    },
  },
];
