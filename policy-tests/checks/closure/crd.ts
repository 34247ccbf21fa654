/**
 * closure-crd: every custom kind's CRD is installed by the repository, and
 * every Application's word about the CRDs it installs or needs matches what
 * its chart renders.
 */
import { applications } from '../../model/argocd/argocd.ts';
import { installedKinds, type InstalledKinds } from '../../model/controller/served-kinds.ts';
import { declaredGroups, PROVIDES_CRDS, PROVIDES_CRDS_AT_RUNTIME, REQUIRES_CRDS } from '../../model/argocd/app-declarations.ts';
import { dig } from '../../model/core/dig.ts';
import { groupOf, type Resource } from '../../model/core/manifest.ts';
import type { Path } from '../../model/core/positions.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { FACTS_FIX } from './closing.ts';
import { scalarText } from '../../model/core/text.ts';

const crdGroup = (r: Resource): string => scalarText(dig(r.object, ['spec', 'group']) ?? '');

/** One finding per kind and file: a missing operator shows once where each kind is used. */
function reportUninstalledKinds(ctx: CheckContext, installed: InstalledKinds, builtinGroups: ReadonlySet<string>): void {
  const reported = new Set<string>();
  for (const r of ctx.resources) {
    const group = groupOf(r.apiVersion);
    if (builtinGroups.has(group) || installed.kinds.has(`${group}/${r.kind}`) || installed.kinds.has(`${group}/*`)) continue;
    const key = `${r.file}#${r.kind}`;
    if (reported.has(key)) continue;
    reported.add(key);
    ctx.fail(
      { resource: r, path: ['apiVersion'] },
      installed.groups.has(group)
        ? `${r.kind} is a kind of ${group}, but no CRD installed here defines ${r.kind} (the group's other kinds are there): the sync fails with "no matches for kind"`
        : `${r.kind} is a kind of ${group}, whose CRD nothing in the repository installs: the sync fails with "no matches for kind"`,
    );
  }
}

/** What a chart's objects need, declared on its Application (judged offline too), and a rendered chart's kinds on that word, so it stays true. */
function checkRequiredGroups(ctx: CheckContext, installedGroups: Set<string>, builtinGroups: ReadonlySet<string>): void {
  for (const app of applications(ctx.repo)) {
    const missing = declaredGroups(app, REQUIRES_CRDS).filter((g) => !installedGroups.has(g) && !builtinGroups.has(g));
    if (missing.length)
      ctx.fail(
        { resource: app.resource, path: ['metadata', 'annotations', REQUIRES_CRDS] },
        `${app.name}'s chart uses kinds of ${missing.join(', ')}, whose CRDs nothing in the repository installs`,
      );
  }
  for (const render of ctx.renders.filter((x) => x.status === 'rendered' && x.source.chart !== undefined)) {
    const own = new Set(declaredGroups(render.app));
    const required = new Set(declaredGroups(render.app, REQUIRES_CRDS));
    const used = [...new Set(render.resources.filter((r) => r.kind !== 'CustomResourceDefinition').map((r) => groupOf(r.apiVersion)))].filter(
      (g) => !builtinGroups.has(g) && !own.has(g) && !required.has(g),
    );
    if (used.length)
      ctx.fail(
        { resource: render.app.resource, path: ['metadata', 'annotations'], target: 'key' },
        `${render.label} renders kinds of ${used.join(', ')}, which ${REQUIRES_CRDS} does not list: offline, the gate would not know the app needs them`,
      );
  }
}

/** A declaration must say what the render installs, or the offline gate trusts a wrong word. */
function checkProvidedDeclarations(ctx: CheckContext): void {
  for (const render of ctx.renders.filter((x) => x.status === 'rendered')) {
    const rendered = new Set(render.resources.filter((r) => r.kind === 'CustomResourceDefinition').map(crdGroup));
    const declared = new Set(declaredGroups(render.app));
    const sameApp = ctx.renders
      .filter((x) => x.app === render.app && x.status === 'rendered')
      .flatMap((x) => x.resources.filter((r) => r.kind === 'CustomResourceDefinition').map(crdGroup));
    const missing = [...rendered].filter((g) => !declared.has(g));
    const atRuntime = declaredGroups(render.app, PROVIDES_CRDS_AT_RUNTIME);
    const extra = [...declared].filter(
      (g) =>
        !sameApp.includes(g) &&
        !atRuntime.includes(g) &&
        !ctx.repo.resources.some((r) => r.kind === 'CustomResourceDefinition' && dig(r.object, ['spec', 'group']) === g),
    );
    const at = { resource: render.app.resource, path: ['metadata', 'annotations'] as Path, target: 'key' as const };
    if (missing.length)
      ctx.fail(at, `${render.label} installs the CRDs of ${missing.join(', ')}, but ${PROVIDES_CRDS} does not say so: offline, the gate would not know`);
    if (extra.length && render === ctx.renders.find((x) => x.app === render.app && x.status === 'rendered'))
      ctx.fail(at, `${PROVIDES_CRDS} declares ${extra.join(', ')}, but the render installs no CRD of ${extra.length === 1 ? 'that group' : 'those groups'}`);
  }
}

export function crdClosureCheck(builtinGroups: ReadonlySet<string>): PolicyCheck {
  return {
    id: 'closure-crd',
    description: `Every custom kind's CRD is installed by the repository: rendered or plain, or declared by the Application that installs it (${PROVIDES_CRDS}, checked against the render whenever the chart is rendered; ${PROVIDES_CRDS_AT_RUNTIME} for CRDs its operator registers at start, never in a render), or listed in providedOutsideGit (invariants P1).`,
    invariants: ['P1'],
    remediation: `deploy the operator that installs the CRD, and give its Application the annotation ${PROVIDES_CRDS}: "<api groups>" (the groups its render installs), ${FACTS_FIX}`,
    reads: { kinds: ['*'], everyKind: "every resource's kind needs its CRD or a built-in API", renders: true },
    exemptible: false,
    run(ctx) {
      const installed = installedKinds(ctx.repo, ctx.renders);
      reportUninstalledKinds(ctx, installed, builtinGroups);
      checkRequiredGroups(ctx, installed.groups, builtinGroups);
      checkProvidedDeclarations(ctx);
    },
  };
}
