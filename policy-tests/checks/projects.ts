/**
 * AppProjects that mean something: each project allows what its apps render
 * (destinations, cluster-scoped kinds, and no blacklisted namespaced kind),
 * and not far more (no wildcard kinds, no destination or kind that none of
 * its apps uses, judged when every app of the project is rendered).
 */
import { applications, argoNormalizeGitURL, owningApplication, ROOT_APP_FILE, sourcePermitted } from '../model/argocd/argocd.ts';
import { argoGlobMatch } from '../model/core/glob.ts';
import { groupOf, type Resource } from '../model/core/manifest.ts';
import { type PolicyCheck, type Area, type CheckEnvironment } from '../model/checks/kit.ts';
import { scalarText } from '../model/core/text.ts';

interface GroupKind {
  group: string;
  kind: string;
}

interface Project {
  resource: Resource;
  sourceRepos: string[];
  destinations: { namespace: string; server?: string }[];
  clusterWhitelist: GroupKind[];
  namespaceBlacklist: GroupKind[];
}

const matches = (entry: GroupKind, group: string, kind: string) =>
  (entry.group === '*' || entry.group === group) && (entry.kind === '*' || entry.kind === kind);

function readProject(r: Resource): Project {
  const spec = (r.object.spec ?? {}) as Record<string, unknown>;
  const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? (v as Record<string, unknown>[]) : []);
  const gk = (v: unknown): GroupKind[] => list(v).map((e) => ({ group: scalarText(e.group ?? ''), kind: scalarText(e.kind ?? '') }));
  return {
    resource: r,
    sourceRepos: (Array.isArray(spec.sourceRepos) ? spec.sourceRepos : []).map(String),
    destinations: list(spec.destinations).map((d) => ({ namespace: scalarText(d.namespace ?? '') })),
    clusterWhitelist: gk(spec.clusterResourceWhitelist),
    namespaceBlacklist: gk(spec.namespaceResourceBlacklist),
  };
}

/** Argo CD refuses an Application whose source its project's sourceRepos do not permit. */
const projectSourcesCheck: PolicyCheck = {
  id: 'argocd-project-sources',
  description:
    "Argo CD syncs an Application only from repositories its AppProject's sourceRepos permit (globs, `!` denials, URLs normalised as Argo CD normalises them): every project with apps permits this repository (the cluster facts' repoURL), and every source of every Application is permitted by its project (invariants P1).",
  invariants: ['P1'],
  remediation: "add the repository URL (as the Application writes it, or a glob that matches it) to the project's sourceRepos in clusters/home/projects.yaml",
  reads: { kinds: ['Application', 'AppProject', 'ConfigMap'] },
  exemptible: false,
  run(ctx) {
    const { repo } = ctx;
    const projects = new Map(repo.resources.filter((r) => r.kind === 'AppProject').map((r) => [r.name, readProject(r)]));
    const thisRepo = repo.facts?.repoURL;
    // The root cause first: a project that does not permit this repository refuses every app of it that reads
    // this repository, so those apps are not reported again.
    const refusesThisRepo = new Set<string>();
    const apps = applications(repo);
    for (const [name, project] of projects) {
      if (!thisRepo || !apps.some((a) => a.project === name)) continue;
      if (sourcePermitted(project.sourceRepos, thisRepo)) continue;
      refusesThisRepo.add(name);
      ctx.fail(
        { resource: project.resource, path: project.sourceRepos.length ? ['spec', 'sourceRepos'] : ['spec'] },
        `project ${name} does not permit this repository (${thisRepo}, the cluster facts' repoURL) in sourceRepos: Argo CD refuses to sync every app of it`,
      );
    }
    for (const app of apps) {
      const project = projects.get(app.project);
      if (!project) continue;
      for (const source of app.sources) {
        if (!source.repoURL || sourcePermitted(project.sourceRepos, source.repoURL)) continue;
        if (thisRepo && refusesThisRepo.has(app.project) && argoNormalizeGitURL(source.repoURL) === argoNormalizeGitURL(thisRepo)) continue;
        ctx.fail(
          { resource: app.resource, path: [...source.at, 'repoURL'] },
          `app ${app.name} reads ${source.repoURL}, which project ${app.project} does not permit in sourceRepos: Argo CD refuses to sync it`,
        );
      }
    }
  },
};

export function projectChecks({ isClusterScoped }: CheckEnvironment): PolicyCheck[] {
  return [
    projectSourcesCheck,
    {
      id: 'argocd-project-scope',
      description:
        'Each AppProject allows exactly what its apps render: every namespaced resource in one of its destinations and not on its namespaceResourceBlacklist, every cluster-scoped kind on its clusterResourceWhitelist; no wildcard kind, and (when all its apps are rendered) no destination or kind none of them uses (invariants P1).',
      invariants: ['P1'],
      remediation:
        'list in the project exactly the namespaces and cluster-scoped kinds its apps render; move what does not belong to the project (a ClusterRoleBinding in a media app) out',
      reads: { kinds: ['*'], everyKind: "a project's namespaces and cluster-scoped kinds are held to everything its apps render", renders: true },
      exemptible: false,
      run(ctx) {
        const { repo } = ctx;
        const projects = new Map(repo.resources.filter((r) => r.kind === 'AppProject').map((r) => [r.name, readProject(r)]));
        const apps = applications(repo);
        const used = new Map<string, { namespaces: Set<string>; kinds: Set<string> }>();
        const root = apps.find((a) => a.resource.file === ROOT_APP_FILE);
        for (const r of ctx.resources) {
          const app = owningApplication(repo, r);
          const project = app && projects.get(app.project);
          if (!app || !project) continue;
          // The root app applies clusters/home and the Application documents; anything else it picks up is argocd-app-folder's to report.
          if (app === root && !r.file.startsWith('clusters/') && r.kind !== 'Application') continue;
          const use = used.get(app.project) ?? { namespaces: new Set<string>(), kinds: new Set<string>() };
          used.set(app.project, use);
          const group = groupOf(r.apiVersion);
          if (isClusterScoped(r.apiVersion, r.kind) || r.kind === 'CustomResourceDefinition') {
            const entry = project.clusterWhitelist.find((e) => matches(e, group, r.kind));
            if (entry) use.kinds.add(`${entry.group}/${entry.kind}`);
            else
              ctx.fail(
                { resource: r, path: ['kind'] },
                `${r.kind} is cluster-scoped, and project ${app.project} (app ${app.name}) does not allow ${group || 'core'}/${r.kind}: Argo CD refuses the sync`,
              );
            continue;
          }
          const namespace = r.namespace ?? app.destinationNamespace ?? '';
          const destination = project.destinations.find((d) => argoGlobMatch(d.namespace, namespace));
          if (destination) use.namespaces.add(destination.namespace);
          else
            ctx.fail(
              { resource: r, path: r.namespace ? ['metadata', 'namespace'] : ['metadata', 'name'] },
              `${r.kind} ${r.name} goes to namespace ${namespace}, which project ${app.project} (app ${app.name}) has no destination for`,
            );
          if (project.namespaceBlacklist.some((e) => matches(e, group, r.kind)))
            ctx.fail({ resource: r, path: ['kind'] }, `${r.kind} is on project ${app.project}'s namespaceResourceBlacklist, but app ${app.name} renders one`);
        }
        for (const [name, project] of projects) {
          project.clusterWhitelist.forEach((e, i) => {
            if (e.kind === '*' || e.group === '*')
              ctx.fail(
                { resource: project.resource, path: ['spec', 'clusterResourceWhitelist', i] },
                `project ${name} allows every cluster-scoped kind${e.group === '*' ? '' : ` of ${e.group || 'core'}`}: list the kinds its apps render`,
              );
          });
          // What the project allows beyond use is judged only when it has apps and every one of them was rendered
          // (a project nobody uses is argocd-project's concern).
          const members = apps.filter((a) => a.project === name);
          const complete = members.length > 0 && members.every((a) => !ctx.renders.some((x) => x.app.name === a.name && x.status !== 'rendered'));
          if (!complete) continue;
          const use = used.get(name) ?? { namespaces: new Set<string>(), kinds: new Set<string>() };
          project.destinations.forEach((d, i) => {
            if (!use.namespaces.has(d.namespace))
              ctx.fail(
                { resource: project.resource, path: ['spec', 'destinations', i, 'namespace'] },
                `project ${name} allows namespace ${d.namespace}, where none of its apps puts anything`,
              );
          });
          project.clusterWhitelist.forEach((e, i) => {
            if (e.kind !== '*' && e.group !== '*' && !use.kinds.has(`${e.group}/${e.kind}`))
              ctx.fail(
                { resource: project.resource, path: ['spec', 'clusterResourceWhitelist', i] },
                `project ${name} allows ${e.group || 'core'}/${e.kind}, which none of its apps renders`,
              );
          });
        }
      },
    },
  ];
}

export const projectArea: Area = { name: 'projects', checks: projectChecks };
