/**
 * Argo CD coverage (P1): every workload is declared by exactly one
 * Application that tracks `main` and is found by the root app (that it syncs itself: sync-policy.ts).
 */
import { dirname } from 'node:path/posix';
import {
  APPLICATION_FILE,
  ROOT_APP_FILE,
  applications,
  componentFiles,
  filesOfApp,
  isApplication,
  isDirectorySource,
  isExactChartVersion,
  isThisRepo,
  normalizeSourcePath,
  ownersByFile,
  sourceRefusals,
  sourceType,
  type AppSource,
  type ArgoApp,
} from '../../model/argocd/argocd.ts';
import type { CheckContext, FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';
import { madeBy } from '../../model/appset/outcomes.ts';
import type { Path } from '../../model/core/positions.ts';
import { valueFileProblem } from '../../model/argocd/source-files.ts';

/** Argo CD's own folder: its kustomization, its configuration, and the tool versions of its release. */

/**
 * Where a finding on an option of a source lands: in the source parameter file that set it, where Argo CD merged one
 * in (model/argocd/source-parameters.ts), else at the option in the Application.
 */
function optionPlace(app: ArgoApp, source: AppSource, option: Path): FailurePlace {
  const set = source.parameterFiles?.placeOf(option, 'value');
  return set?.file ? { file: set.file, line: set.line, col: set.col } : { resource: app.resource, path: [...source.at, ...option] };
}

export const ARGOCD_DIR = 'apps/platform/argocd';
export const ARGOCD_TOOLS_FACTS = `${ARGOCD_DIR}/facts/render-tools.yaml`;
export const HEALTH_KEY = 'resource.customizations.health.argoproj.io_Application';
export const minorOf = (v: string) => v.replace(/^v/, '').split('.').slice(0, 2).join('.');

export const APP_KINDS = ['Application'] as const;

export function appsOf(ctx: CheckContext): ArgoApp[] {
  return applications(ctx.repo);
}

/** Folders whose manifests need an application.yaml of their own (or of an ancestor app folder). */
function workloadFolders(files: readonly string[]): string[] {
  return [...new Set(files.map((f) => dirname(f)))].filter((d) => d !== dirname(ROOT_APP_FILE)).sort();
}

export const argocdChecks: PolicyCheck[] = [
  {
    id: 'argocd-app-folder',
    description:
      'Every workload folder holds exactly one application.yaml with one Application, and Applications live nowhere else (docs/design.md, Layout; invariants P1).',
    invariants: ['P1'],
    remediation: 'add an application.yaml declaring one Application for the folder, or move the manifests into an app folder',
    reads: { kinds: ['*'], everyKind: 'every resource is held to the folder of the Application that applies it' },
    exemptible: false,
    run(ctx) {
      const { repo } = ctx;
      // A kustomize component's folder belongs to the apps that include it, not to an app of its own.
      const shared = componentFiles(repo);
      // A folder an ApplicationSet's Application syncs is that Application's: the ApplicationSet stands for its application.yaml.
      const generated = applications(repo)
        .filter((a) => madeBy(a.resource))
        .flatMap((a) => a.sources.filter((s) => isThisRepo(repo, s) && s.path !== undefined).map((s) => normalizeSourcePath(s.path!)));
      for (const folder of workloadFolders(repo.manifestFiles.filter((f) => !shared.has(f)))) {
        let dir = folder;
        let owned = generated.some((path) => path !== '' && (folder === path || folder.startsWith(`${path}/`)));
        while (dir !== '.' && dir !== '') {
          if (repo.files.has(`${dir}/${APPLICATION_FILE}`)) {
            owned = true;
            break;
          }
          dir = dirname(dir);
        }
        if (!owned)
          ctx.fail({ file: repo.manifestFiles.find((f) => dirname(f) === folder)! }, `folder ${folder}/ has manifests but no ${APPLICATION_FILE} declares it`);
      }
      for (const parsed of repo.parsed.filter((p) => p.renderedBy === undefined)) {
        const apps = parsed.resources.filter(isApplication);
        const isAppFile = parsed.file.endsWith(`/${APPLICATION_FILE}`);
        if (isAppFile && apps.length !== 1) ctx.fail({ file: parsed.file }, `${APPLICATION_FILE} must declare exactly one Application, found ${apps.length}`);
        if (isAppFile) {
          for (const other of parsed.resources.filter((r) => !isApplication(r)))
            ctx.fail({ resource: other, path: ['kind'] }, `${APPLICATION_FILE} must hold only its Application, found ${other.kind} ${other.name}`);
        }
        if (!isAppFile && parsed.file !== ROOT_APP_FILE) {
          for (const app of apps) ctx.fail({ resource: app, path: ['kind'] }, `Application ${app.name} must live in its folder's ${APPLICATION_FILE}`);
        }
      }
    },
  },
  {
    id: 'argocd-source-path',
    description:
      "Every Application source is this repo's existing folder or a Helm chart, its path one Argo CD joins to its checkout (util/app/path Path: not absolute, not leaving the repository, a folder), each ref of its sources a key Argo CD takes (letters, digits, _ and -, one source each), and every $values file exists (invariants P1).",
    invariants: ['P1'],
    remediation:
      'point repoURL at the repo URL in clusters/home/cluster-facts.yaml and path at an existing folder, relative to the repository root (no leading /)',
    reads: { kinds: APP_KINDS },
    exemptible: false,
    run(ctx) {
      const { repo } = ctx;
      // A facts repoURL that no Application reads, while they agree on another, is the one mistake behind every
      // "not this repo" below: said once, at the facts (gate/root-causes.ts folds the rest under it).
      const gitSources = applications(repo).flatMap((a) => a.sources.filter((s) => s.chart === undefined && s.repoURL));
      if (repo.facts && repo.factsResource && gitSources.length > 0 && !gitSources.some((s) => isThisRepo(repo, s))) {
        const urls = [...new Set(gitSources.map((s) => s.repoURL))];
        ctx.fail(
          { resource: repo.factsResource, path: ['data', 'repoURL'] },
          `no Application reads the cluster facts' repoURL ${repo.facts.repoURL}; their sources read ${urls.slice(0, 2).join(', ')}${urls.length > 2 ? ', ...' : ''}: one of the two names the wrong repository`,
        );
      }
      for (const app of appsOf(ctx)) {
        if (app.sources.length === 0) ctx.fail({ resource: app.resource, path: ['spec'] }, `Application ${app.name} has no source`);
        const refs = new Set(app.sources.filter((s) => isThisRepo(repo, s) && s.ref).map((s) => s.ref));
        // What Argo CD refuses before it reads a source: a path it will not join to its checkout (util/app/path Path;
        // a folder beyond the manifest roots exists as the checkout has it), a ref key it will not take.
        const refused = sourceRefusals(repo, app);
        for (const { source, field, message } of refused) ctx.fail({ resource: app.resource, path: [...source.at, field] }, message);
        for (const source of app.sources) {
          if (source.chart === undefined && !isThisRepo(repo, source)) {
            ctx.fail(
              { resource: app.resource, path: [...source.at, 'repoURL'] },
              `source repoURL ${source.repoURL || '(empty)'} is not this repo (${repo.facts?.repoURL ?? 'cluster facts missing'})`,
            );
            continue;
          }
          if (source.chart === undefined) {
            // A kustomization may build from remote files alone (Argo CD's own install manifest).
            if (
              !refused.some((r) => r.source === source && r.field === 'path') &&
              isDirectorySource(repo, source) &&
              filesOfApp(repo, { ...app, sources: [source] }).length === 0
            )
              ctx.fail({ resource: app.resource, path: [...source.at, 'path'] }, `source path ${source.path} applies no manifest`);
            if (source.path === undefined && !source.ref && !isDirectorySource(repo, source) && sourceType(repo, source) !== 'kustomize')
              ctx.fail({ resource: app.resource, path: source.at }, 'a source from this repo needs a path (plain manifests) or a ref (values for a chart)');
          }
          for (const [i, valueFile] of (source.helm?.valueFiles ?? []).entries()) {
            const m = /^\$([^/]+)\/(.+)$/.exec(valueFile);
            if (!m) continue;
            const place = optionPlace(app, source, ['helm', 'valueFiles', i]);
            if (!refs.has(m[1]!)) ctx.fail(place, `value file ${valueFile} uses $${m[1]} but no source of this repo has ref: ${m[1]}`);
            else {
              const problem = valueFileProblem(repo, app, source, valueFile);
              if (problem) ctx.fail(place, problem);
            }
          }
        }
      }
    },
  },
  {
    id: 'argocd-track-main',
    description: 'Sources from this repo track the branch Argo CD deploys, main (invariants P1: Argo CD syncs them from main).',
    invariants: ['P1'],
    remediation: 'set targetRevision to the revision in clusters/home/cluster-facts.yaml (main)',
    reads: { kinds: APP_KINDS },
    exemptible: false,
    run(ctx) {
      const revision = ctx.repo.facts?.revision ?? 'main';
      for (const app of appsOf(ctx)) {
        for (const source of app.sources.filter((s) => isThisRepo(ctx.repo, s))) {
          if (source.targetRevision !== revision)
            ctx.fail({ resource: app.resource, path: [...source.at, 'targetRevision'] }, `targetRevision is "${source.targetRevision}", must be "${revision}"`);
        }
      }
    },
  },
  {
    id: 'argocd-chart-pinned',
    description: 'Helm chart sources pin one exact chart version: no ranges, no *, no latest (invariants P1).',
    invariants: ['P1'],
    remediation: 'set targetRevision to an exact chart version such as 1.2.3',
    reads: { kinds: APP_KINDS },
    exemptible: false,
    run(ctx) {
      for (const app of appsOf(ctx)) {
        for (const source of app.sources.filter((s) => s.chart !== undefined)) {
          if (!isExactChartVersion(source.targetRevision))
            ctx.fail(
              { resource: app.resource, path: [...source.at, 'targetRevision'] },
              `chart ${source.chart} version "${source.targetRevision}" is not an exact version`,
            );
        }
      }
    },
  },
  {
    id: 'argocd-destination-namespace',
    description: 'Every Application names its destination namespace explicitly (invariants P1).',
    invariants: ['P1'],
    remediation: 'set spec.destination.namespace',
    reads: { kinds: APP_KINDS },
    exemptible: false,
    run(ctx) {
      for (const app of appsOf(ctx)) {
        if (!app.destinationNamespace)
          ctx.fail({ resource: app.resource, path: ['spec', 'destination'] }, `Application ${app.name} has no destination namespace`);
      }
    },
  },
  {
    id: 'argocd-project',
    description: 'Every Application belongs to an AppProject declared in clusters/home, never to default (invariants P1).',
    invariants: ['P1'],
    remediation: 'set spec.project to one of the AppProjects in clusters/home/projects.yaml',
    reads: { kinds: ['Application', 'AppProject'] },
    exemptible: false,
    run(ctx) {
      const projects = new Set(ctx.resources.filter((r) => r.kind === 'AppProject').map((r) => r.name));
      for (const app of appsOf(ctx)) {
        if (app.project === 'default') ctx.fail({ resource: app.resource, path: ['spec', 'project'] }, `Application ${app.name} uses project "default"`);
        else if (!projects.has(app.project))
          ctx.fail({ resource: app.resource, path: ['spec', 'project'] }, `AppProject "${app.project}" is not declared in this repo`);
      }
    },
  },
  {
    id: 'argocd-single-owner',
    description: 'No file, and so no resource, is applied by two Applications (invariants P1).',
    invariants: ['P1'],
    remediation: "narrow one app's path or add the file to its directory.exclude",
    reads: { kinds: APP_KINDS },
    exemptible: false,
    run(ctx) {
      const shared = componentFiles(ctx.repo);
      for (const [file, owners] of ownersByFile(ctx.repo)) {
        // A kustomize component is built into each app that includes it, under that app's names.
        if (owners.length > 1 && !shared.has(file))
          ctx.fail({ file: file }, `applied by ${owners.length} Applications: ${owners.map((o) => o.name).join(', ')}`);
      }
    },
  },
];
