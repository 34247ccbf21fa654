/**
 * kustomize sources: the files a kustomization reads, found from the parsed
 * repository (kustomization files are data files). The render tier keys its
 * cache on them and lets kustomize's output stand in for their plain copies;
 * the Argo CD checks count them as applied by the app, and files reached
 * through `components:` as shared by design. The walk itself is
 * kustomize-walk.ts; this is the checkout's view of it, and argocd-cm's build options.
 */
import { checkoutPathSet, parseDataFile, type Repo } from '../repository/repo.ts';
import { perRepo } from '../repository/per-repo.ts';
import { diskView, type KustomizeView } from './kustomize-walk.ts';

export { KUSTOMIZATION_FILES } from './repo-server.ts';
export { kustomizationIn, kustomizeInputs, type HelmChartEntry, type KustomizeInputs, type KustomizeView } from './kustomize-walk.ts';

/**
 * The whole checkout as kustomize sees it (git's list of paths, each kustomization parsed from disk where the loader
 * did not read it): a base or component outside the manifest roots is still inside the repository, and Argo CD's
 * kustomize builds it. What the render reads and keys on, and what the diff fingerprints.
 */
export const checkoutView = perRepo((repo: Repo): KustomizeView =>
  // The checkout's one set of paths, shared by every view of it: a walk is kept by the set it walked.
  diskView(repo.root, checkoutPathSet(repo), repo.dataFiles, parseDataFile),
);

/** What argocd-cm's `kustomize.buildOptions` asks of every `kustomize build`, split as the gate can and cannot build with it. */
export interface KustomizeBuildOptions {
  /** The options the gate passes to its own build too: the load restrictor, as kustomize spells it, and --enable-helm. */
  args: string[];
  /** The rest, as written: the gate builds without them, so what they change is not judged. */
  other: string[];
}

const RESTRICTORS = new Set(['LoadRestrictionsNone', 'LoadRestrictionsRootOnly']);

/**
 * argocd-cm's `kustomize.buildOptions` (util/settings GetKustomizeSettings), as Argo CD passes it:
 * `kustomize build <path>` then the value split at white space (util/kustomize, parseKustomizeBuildOptions). The load
 * restrictor is passed on, and Helm inflation (the gate's own pinned Helm, with charts from its cache): plugins and
 * exec functions would have the gate run what a pull request brings, and it never does.
 */
export function kustomizeBuildOptions(value: unknown): KustomizeBuildOptions {
  const fields = typeof value === 'string' ? value.split(/\s+/).filter(Boolean) : [];
  const out: KustomizeBuildOptions = { args: [], other: [] };
  for (let i = 0; i < fields.length; i++) {
    // Helm inflation: the gate builds with it too, from the chart cache (render/kustomize.ts), never fetching.
    if (fields[i] === '--enable-helm') {
      out.args.push('--enable-helm');
      continue;
    }
    const restrictor = /^--load[-_]restrictor(?:=(.*))?$/.exec(fields[i]!);
    if (!restrictor) {
      out.other.push(fields[i]!);
      continue;
    }
    const given = restrictor[1] ?? fields[i + 1];
    if (given !== undefined && RESTRICTORS.has(given)) {
      out.args.push('--load-restrictor', given);
      if (restrictor[1] === undefined) i++;
    } else out.other.push(fields[i]!);
  }
  return out;
}
