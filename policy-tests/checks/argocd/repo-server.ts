/**
 * What Argo CD's repo-server reads that the gate will not take as written:
 * a source parameter file it fails on, or whose keys it drops or ignores
 * (the gate merges the others as it does), the files its
 * directory walk applies that a reviewer would not see (dot-names; jsonnet is
 * evaluated by the render tier and judged), sources it hands to a plugin or refuses,
 * a source hydrator's branch, synced in place of the sources, and an Application's helm.values that Helm refuses
 * (Argo CD hands it to Helm as a values file: the source fails, whether or not its chart is at hand) or reads as
 * YAML 1.1 otherwise than it reads (as a values file's plain yes is the loader's yaml-1.1-scalar). Each
 * finding says what Argo CD would have done.
 */
import { applications } from '../../model/argocd/argocd.ts';
import { disabledToolRefusals, refusalsOf, submoduleRefusals, symlinkRefusals } from '../../model/argocd/refusals.ts';
import { applicationSetProblems } from '../../model/appset/outcomes.ts';
import { inlineValuesProblems } from '../../model/helm/inline-values.ts';
import { ARGOCD_CM_PATCH, argocdSettings, settingsPlace } from '../../model/controller/resource-filter.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { YAML11_FIX } from '../../model/yaml/yaml11.ts';
import { APP_KINDS } from './argocd.ts';

/** What mends an Application's helm.values that Helm refuses. */
const VALUES_FIX = 'write helm.values as a values file Helm reads: YAML 1.1 (spaces, not tabs, for indentation), a map in each document';

/** What mends an ApplicationSet the gate cannot expand as Argo CD does, or one Argo CD fails. */
const APPSET_FIX =
  'build the ApplicationSet from the generators the gate evaluates (list, clusters, git of this repository at the judged branch, matrix, merge) and a template Argo CD renders, or write each Application out';

export const argocdRepoServerChecks: PolicyCheck[] = [
  {
    id: 'argocd-applied-files',
    description:
      "What Argo CD's repo-server applies is what the gate judges: a source parameter file (.argocd-source.yaml, .argocd-source-<app>.yaml) is merged into its source as Argo CD merges it, and none holds what Argo CD fails the source for, drops or ignores; no hidden (dot-named) file is applied by a directory source (a jsonnet file is evaluated as Argo CD evaluates it, and what it yields judged), no source needs a plugin or names two tools, no Application's helm.values is one Helm 4 refuses (read as it reads a values file: its documents merged, YAML 1.1 through go-yaml) or holds a plain scalar YAML 1.1 reads otherwise than YAML 1.2 (yes, off, 0755: as in a values file), every ApplicationSet is expanded as Argo CD's ApplicationSet controller expands it (list, clusters and git generators of this repository, a matrix or merge of them; fasttemplate, or Go templates through the pinned Helm's engine) and the Applications it makes judged like any other, and none is one Argo CD fails or the gate cannot expand, no git submodule brings another repository's files into Argo CD's checkout (.gitmodules; argocd-cmd-params-cm reposerver.enable.git.submodule, true by default), no symlink anywhere in the checkout is absolute or steps out of it (Argo CD fails every source of the repository on one, unless argocd-cmd-params-cm reposerver.allow.oob.symlinks is true), argocd-cm turns off no tool a source needs (helm.enable, kustomize.enable: Argo CD would apply its folder as plain YAML), no plugin sidecar of the repo-server claims a source by its discovery, no directory source's files together pass the repo-server's size limit (argocd-cmd-params-cm reposerver.max.combined.directory.manifests.size, 10M by default; jsonnet files not counted), no file an app's manifests are made from is a Git LFS pointer (Argo CD's checkout holds the object where the repository's credentials enable LFS, the pointer where they do not), and no Application syncs from the branch a source hydrator writes (invariants P1).",
    invariants: ['P1'],
    remediation:
      'write a source parameter file as Argo CD decodes it (the field names and types of its ApplicationSource), or put the options in the Application itself, write helm.values as a values file Helm reads, give hidden manifests a plain name, give each source one tool block Argo CD renders without a plugin, build an ApplicationSet from the generators the gate evaluates (list, clusters, git of this repository at the judged branch, matrix, merge) and a template Argo CD renders, or write each Application out, commit what a submodule holds into this repository (or set reposerver.enable.git.submodule: "false"), replace a symlink that leaves the repository by the file itself, or by a relative link that stays inside it, keep a directory source within the size limit, commit the files an app reads outside LFS (or judge a checkout that holds its LFS objects), and sync from main, not a hydrated branch',
    // argocd-cmd-params-cm: the repo-server's limit on a directory source's combined size, and its submodules; argocd-cm:
    // the tools it generates manifests with.
    // The repo-server's Deployment: the plugin sidecars that may claim a source by discovery (cmp-plugins.ts).
    reads: { kinds: [...APP_KINDS, 'ConfigMap', 'ApplicationSet', 'Deployment'], files: [ARGOCD_CM_PATCH] },
    exemptible: false,
    run(ctx) {
      for (const { line, message, fix } of submoduleRefusals(ctx.repo)) ctx.fail({ file: '.gitmodules', line }, message, fix);
      for (const { file, message, fix } of symlinkRefusals(ctx.repo)) ctx.fail({ file }, message, fix);
      const settings = argocdSettings(ctx.resources, ctx.repo);
      for (const { key, message, fix } of disabledToolRefusals(ctx.repo, settings?.data))
        ctx.fail(settingsPlace(settings, ['data', key]) ?? { file: ARGOCD_CM_PATCH }, message, fix);
      for (const { resource, message } of applicationSetProblems(ctx.repo)) ctx.fail({ resource, path: ['spec', 'generators'] }, message, APPSET_FIX);
      // A file two sources (or two apps) read is refused once for each thing wrong with it.
      const refused = new Set<string>();
      for (const app of applications(ctx.repo)) {
        for (const source of app.sources)
          for (const { file, line, col, message, refused } of inlineValuesProblems(app, source, ctx.repo))
            if (refused)
              ctx.fail(
                { file, line, col },
                `Helm refuses the values Application ${app.name} gives its source in helm.values (Argo CD writes them to a values file and hands it to Helm): ${message}; the source does not render`,
                VALUES_FIX,
              );
            // As in a values file of the repository (the loader's yaml-1.1-scalar): the checks judge Helm's reading.
            else
              ctx.fail(
                { file, line, col },
                `in the helm.values Application ${app.name} gives its source, which Helm reads as YAML 1.1: ${message}`,
                YAML11_FIX,
              );
        for (const refusal of refusalsOf(ctx.repo, app)) {
          if (!('file' in refusal)) ctx.fail({ resource: app.resource, path: refusal.path }, refusal.message, refusal.fix);
          else {
            const once = `${refusal.file}\0${refusal.line ?? 0}\0${refusal.message.replace(/Application \S+/g, '')}`;
            if (refused.has(once)) continue;
            refused.add(once);
            ctx.fail({ file: refusal.file, ...(refusal.line === undefined ? {} : { line: refusal.line }) }, refusal.message, refusal.fix);
          }
        }
      }
    },
  },
];
