/**
 * Repository-wide integrity: one identity per resource, and the cluster facts
 * every other check relies on.
 */
import { APPLICATION_FILE, applications, ownersByFile } from '../model/argocd/argocd.ts';
import { groupOf, type Resource } from '../model/core/manifest.ts';
import { CLUSTER_FACTS_FILE, talosRunsKubernetes, type ClusterFacts } from '../model/repository/cluster-facts.ts';
import { BUNDLED_SCHEMA_MINOR } from '../schema/schema-layer.ts';
import { MANIFEST_ROOTS, type Repo } from '../model/repository/repo.ts';
import { foreignCodeOrState } from '../model/repository/checkout-paths.ts';
import { type PolicyCheck, type Area, type CheckContext, type CheckEnvironment } from '../model/checks/kit.ts';

export function resourceIdentity(resource: Resource, clusterScoped: boolean, appNamespace: string | undefined): string {
  const namespace = clusterScoped ? '' : (resource.namespace ?? appNamespace ?? '');
  return `${groupOf(resource.apiVersion)}/${resource.kind}/${namespace}/${resource.name}`;
}

/** Identity needs the namespace a resource lands in: its own, or its Application's destination. */
function destinationNamespaces(repo: Repo): Map<string, string | undefined> {
  const byFile = new Map<string, string | undefined>();
  for (const [file, owners] of ownersByFile(repo)) byFile.set(file, owners[0]?.destinationNamespace);
  return byFile;
}

/** What Argo CD applies from a folder the gate does not read as the repository's own would sync unjudged by the layout's rules. */
const manifestRootsCheck: PolicyCheck = {
  id: 'manifest-roots',
  description:
    "Every file Argo CD applies, and every application.yaml its root app would apply (it discovers them anywhere in the repository), lies in a folder the gate reads (clusters, apps, monitoring, security, portfolio-api/deploy): an app elsewhere would escape the layout's checks (invariants P1).",
  invariants: ['P1'],
  remediation:
    'move the app under one of those folders, or add its folder to MANIFEST_ROOTS in policy-tests/model/repository/repo.ts (CONTRIBUTING: adding an area)',
  // The Applications: what each applies is read from them (argocd.ts ownersByFile), the files beside them from the tree.
  reads: { kinds: ['Application'] },
  exemptible: false,
  run(ctx) {
    const inRoots = (path: string) => MANIFEST_ROOTS.some((r) => path.startsWith(`${r}/`));
    const flagged = new Set<string>();
    for (const path of ctx.repo.checkout?.paths ?? []) {
      if (path !== APPLICATION_FILE && !path.endsWith(`/${APPLICATION_FILE}`)) continue;
      if (inRoots(path) || foreignCodeOrState(path)) continue;
      flagged.add(path);
      ctx.fail({ file: path }, `${path} is an Application Argo CD's root app applies, in a folder the gate does not read: it would sync unjudged`);
    }
    for (const [path, owners] of ownersByFile(ctx.repo)) {
      if (inRoots(path) || flagged.has(path)) continue;
      ctx.fail({ file: path }, `Application ${owners.map((a) => a.name).join(', ')} applies ${path}, outside the folders the gate reads`);
    }
  },
};

export function repositoryChecks({ isClusterScoped }: CheckEnvironment): PolicyCheck[] {
  return [
    {
      id: 'checkout-no-code-or-state',
      description:
        "No path of the checkout is a package folder (a node_modules segment) or a warm-start store file: Node would resolve the gate's packages from the first, and the second could stand in for a verdict; the gate takes neither from a pull request (invariants P1).",
      invariants: ['P1'],
      remediation: 'remove the path from the repository (git rm); packages come from npm ci, stores from the cache outside the checkout',
      reads: {},
      exemptible: false,
      run(ctx) {
        for (const path of ctx.repo.checkout?.paths ?? []) {
          const why = foreignCodeOrState(path);
          if (why) ctx.fail({ file: path }, `${path} is ${why}`);
        }
      },
    },
    manifestRootsCheck,
    {
      id: 'duplicate-resource',
      description:
        'No two resources share group/kind/namespace/name anywhere in the repo, plain or rendered by a chart or kustomize; Argo CD would fight over them (invariants P1).',
      invariants: ['P1'],
      remediation: 'rename or delete one of the two resources',
      reads: { kinds: ['*'], everyKind: 'two resources of any kind may claim the same name' },
      exemptible: false,
      run(ctx) {
        const namespaces = destinationNamespaces(ctx.repo);
        const appNamespaces = new Map(
          applications(ctx.repo).map((a) => [a.name, a.sources.find((s) => s.helm?.namespace)?.helm?.namespace ?? a.destinationNamespace]),
        );
        const byIdentity = new Map<string, Resource[]>();
        for (const resource of ctx.resources) {
          // A rendered object lands in its Application's namespace; a plain one in that of the app applying its file.
          const namespace = resource.rendered ? appNamespaces.get(resource.rendered.app) : namespaces.get(resource.file);
          const id = resourceIdentity(resource, isClusterScoped(resource.apiVersion, resource.kind), namespace);
          byIdentity.set(id, [...(byIdentity.get(id) ?? []), resource]);
        }
        // Both places are reported: either one may be the copy that has to go.
        for (const same of byIdentity.values()) {
          if (same.length < 2) continue;
          for (const resource of same) {
            const others = same
              .filter((o) => o !== resource)
              .map((o) => (o.rendered ? `the render of ${o.rendered.app} (${o.rendered.template ?? o.rendered.source})` : `${o.file} (document ${o.doc + 1})`));
            ctx.fail({ resource: resource, path: ['metadata', 'name'] }, `${resource.kind} ${resource.name} is also declared in ${others.join(', ')}`);
          }
        }
      },
    },
    {
      id: 'cluster-facts',
      description: `The cluster facts (node count, the nodes' network, Kubernetes and Talos versions, repo URL, revision, Pod Security defaults, the CNI and what it enforces) are pinned once in ${CLUSTER_FACTS_FILE}, for a Kubernetes version the gate has schemas for and the pinned Talos runs (its compatibility range, talosKubernetes) (invariants P1).`,
      invariants: ['P1'],
      remediation: `fix the key in ${CLUSTER_FACTS_FILE}; to move to another Kubernetes minor, bump kubernetes-models to a line generated for it, and Talos first to a release that runs it`,
      reads: { kinds: ['ConfigMap'] },
      exemptible: false,
      run(ctx) {
        const { repo } = ctx;
        const resource = repo.factsResource;
        if (!resource) {
          ctx.fail(
            { file: repo.manifestFiles.find((f) => f.startsWith('clusters/')) ?? CLUSTER_FACTS_FILE },
            `no ConfigMap cluster-facts in ${CLUSTER_FACTS_FILE}`,
          );
          return;
        }
        for (const problem of repo.factsProblems) ctx.fail({ resource: resource, path: ['data', problem.key] }, problem.message);
        if (repo.facts && repo.facts.kubernetesMinor !== BUNDLED_SCHEMA_MINOR) {
          ctx.fail(
            { resource: resource, path: ['data', 'kubernetesVersion'] },
            `the cluster runs Kubernetes ${repo.facts.kubernetesVersion} but the bundled schemas describe 1.${BUNDLED_SCHEMA_MINOR}`,
          );
        }
        if (repo.facts) talosRuns(ctx, resource, repo.facts);
      },
    },
  ];
}

/** Talos runs only the Kubernetes versions its compatibility package allows: talosctl upgrade-k8s and the machine config refuse the others. */
function talosRuns(ctx: CheckContext, resource: Resource, facts: ClusterFacts): void {
  if (!facts.talosVersion || !facts.kubernetesVersion) return;
  const { verdict, minor, row } = talosRunsKubernetes(facts);
  if (verdict === 'unknown')
    ctx.notJudged(
      { resource, path: ['data', 'talosVersion'] },
      `which Kubernetes versions Talos ${minor} runs is not in talosKubernetes: add its row from siderolabs/talos pkg/machinery/compatibility at its release`,
    );
  else if (verdict !== 'runs' && row)
    ctx.fail(
      { resource, path: ['data', 'kubernetesVersion'] },
      `Kubernetes ${facts.kubernetesVersion} is ${verdict} for Talos ${facts.talosVersion}, which runs ${row.from} up to ${row.below}, not included (${row.source}): talosctl upgrade-k8s and the machine config refuse it`,
    );
}

/** The platform (P), in this project's own words: what most areas cite, stated by this one. */
const PLATFORM_INVARIANTS: Readonly<Record<string, string>> = {
  P1: "Argo CD's application folders declare every workload, and Argo CD syncs them from main: what the repository holds is what the cluster accepts and runs.",
  P2: 'Every setting that matters for a rebuild is declared in the repository.',
};

export const repositoryArea: Area = { name: 'repository', checks: repositoryChecks, invariants: PLATFORM_INVARIANTS };
