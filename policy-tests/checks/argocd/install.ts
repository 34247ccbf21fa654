/**
 * Argo CD's own install: the root app finds every Application, an Application's health is computed, and the render tools match the ones the gate pins.
 */
import { ROOT_APP_FILE, filesOfApp, rootApplication, ownersByFile, owningApplication, type ArgoApp } from '../../model/argocd/argocd.ts';
import { madeBy } from '../../model/appset/outcomes.ts';
import { kustomizeBuildOptions } from '../../model/argocd/kustomize.ts';
import { ARGOCD_CM_PATCH, argocdSettings, settingsPlace } from '../../model/controller/resource-filter.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { PINNED_TOOLS } from '../../render/tools.ts';
import { applicationHealthMissed } from '../../model/compare/health-lua.ts';
import { healthOverrideFor, resourceOverrides } from '../../model/compare/resource-overrides.ts';
import { APP_KINDS, ARGOCD_DIR, ARGOCD_TOOLS_FACTS, HEALTH_KEY, appsOf, minorOf } from './argocd.ts';
import { dig, list, str } from '../../model/core/dig.ts';

/** argocd-cm's keys that change how Argo CD builds a kustomize source (util/settings GetKustomizeSettings). */
const KUSTOMIZE_SETTINGS = /^kustomize\.(buildOptions|path|version)(\.(.+))?$/;

/**
 * argocd-cm's kustomize settings: build options Argo CD passes to every `kustomize build` (or to those of one
 * version), and other kustomize binaries by version (util/settings GetKustomizeSettings). The gate builds with its
 * pinned kustomize and argocd-cm's load restrictor alone, so where anything else is set what it judges of a kustomize
 * source may not be what Argo CD applies: not judged, each key.
 */
function buildSettings(ctx: CheckContext): void {
  const settings = argocdSettings(ctx.resources, ctx.repo);
  for (const key of Object.keys(settings?.data ?? {}).sort()) {
    const value = settings!.data[key];
    const match = KUSTOMIZE_SETTINGS.exec(key);
    if (!match || typeof value !== 'string' || !value.trim()) continue;
    const [, kind, , version] = match;
    // The load restrictor the gate builds with too (render/kustomize.ts): only the rest is not judged.
    const unread = kind === 'buildOptions' && !version ? kustomizeBuildOptions(value).other.join(' ') : value.trim();
    if (!unread) continue;
    const which = version ? `the kustomize sources that ask for version ${version}` : 'every kustomize source';
    const what = kind === 'buildOptions' ? `builds ${which} with ${JSON.stringify(unread)}` : `runs ${unread} for ${which}`;
    const why = `argocd-cm's ${key}: Argo CD ${what}, and the gate builds with its own kustomize and without that: what it judges of those sources may not be what Argo CD applies`;
    const place = settingsPlace(settings, ['data', key], 'key');
    if (place) ctx.notJudged(place, why);
  }
}

export const argocdInstallChecks: PolicyCheck[] = [
  {
    id: 'argocd-root-discovery',
    description:
      'The root app in clusters/home discovers every Application; every manifest is applied by some app and no non-manifest file is (invariants P1, P2).',
    invariants: ['P1', 'P2'],
    remediation: `make ${ROOT_APP_FILE} include every application.yaml, and give each folder an app (or exclude non-manifest files)`,
    reads: { kinds: APP_KINDS },
    exemptible: false,
    run(ctx) {
      const { repo } = ctx;
      const apps = appsOf(ctx);
      const root = rootApplication(repo);
      if (!root) {
        ctx.fail({ file: repo.manifestFiles[0] ?? ROOT_APP_FILE }, `no root Application in ${ROOT_APP_FILE}`);
        return;
      }
      const discovered = new Set(filesOfApp(repo, root));
      // An ApplicationSet's Application is discovered where the app applying the ApplicationSet is.
      const found = (app: ArgoApp) => app === root || discovered.has(app.resource.file);
      for (const app of apps) {
        const made = madeBy(app.resource);
        const owner = made && owningApplication(repo, made.set);
        if (!found(app) && !(owner && found(owner)))
          ctx.fail({ resource: app.resource, path: ['metadata', 'name'] }, `Application ${app.name} is not discovered by the root app`);
      }
      const owners = ownersByFile(repo);
      for (const file of repo.manifestFiles) {
        if (file !== ROOT_APP_FILE && !owners.has(file)) ctx.fail({ file: file }, 'orphaned: no Application applies this file');
      }
      for (const file of repo.nonManifestFiles) {
        const by = owners.get(file);
        if (by) ctx.fail({ file: file }, `not a Kubernetes manifest, but Application ${by.map((a) => a.name).join(', ')} would apply it and break the sync`);
      }
    },
  },
  {
    id: 'argocd-app-health',
    description:
      "Argo CD assesses an Application's health (the argoproj.io_Application health customization in argocd-cm, run as Argo CD runs its Lua: it returns the Application's own health for each health it reports) and tracks resources by annotation, so an app of apps waits for each wave's apps and the sync waves gate something; judged on the rendered argocd-cm, or offline on the patch that sets it (invariants P1).",
    invariants: ['P1'],
    remediation: `in ${ARGOCD_CM_PATCH} set ${HEALTH_KEY} to a Lua script returning obj.status.health, and application.resourceTrackingMethod: annotation`,
    reads: { kinds: ['ConfigMap'], files: [ARGOCD_CM_PATCH] },
    exemptible: false,
    run(ctx) {
      const settings = argocdSettings(ctx.resources, ctx.repo);
      if (!settings) {
        ctx.fail({ file: `${ARGOCD_DIR}/kustomization.yaml` }, 'no argocd-cm configures Argo CD: Applications get no health, and sync waves gate nothing');
        return;
      }
      const { data } = settings;
      const fail = (message: string, key?: string) => {
        const place = settingsPlace(settings, key === undefined ? ['data'] : ['data', key], 'key');
        if (place) ctx.fail(place, message);
      };
      // The script Argo CD runs for an Application: its own key's, the older map's, or a glob's (GetHealthScript).
      const override = healthOverrideFor(resourceOverrides(data), 'argoproj.io', 'Application');
      if (!override) fail(`argocd-cm has no ${HEALTH_KEY}: Argo CD marks Applications healthy at once, and the waves gate nothing`);
      else {
        const wrong = applicationHealthMissed(override.healthLua, override.useOpenLibs);
        if (wrong)
          fail(
            `argocd-cm's ${override.keys.health} ${wrong}: Argo CD takes a child Application's health from it, so the app of apps' waves wait on what it says`,
            override.keys.health,
          );
      }
      if (data['application.resourceTrackingMethod'] !== 'annotation')
        fail(
          `argocd-cm tracks resources by ${JSON.stringify(data['application.resourceTrackingMethod'] ?? 'label')}, must be annotation: charts set app.kubernetes.io/instance themselves`,
        );
    },
  },
  {
    id: 'argocd-render-tools',
    description:
      "The gate renders with the tools the deployed Argo CD renders with: the same kustomize, and Helm of the same minor, as the pinned release's hack/tool-versions.sh says; argocd-cm's kustomize load restrictor and Helm inflation (--enable-helm, from the chart cache) are built with, and any other kustomize build option or kustomize binary it sets is said not judged (invariants P1).",
    invariants: ['P1'],
    remediation: `move ${ARGOCD_TOOLS_FACTS} with the Argo CD version in ${ARGOCD_DIR}/kustomization.yaml, and the render tools (tools/render/) with both`,
    reads: { kinds: ['ConfigMap'], files: [ARGOCD_TOOLS_FACTS, ARGOCD_CM_PATCH] },
    exemptible: false,
    run(ctx) {
      buildSettings(ctx);
      const facts = ctx.repo.dataFiles.get(ARGOCD_TOOLS_FACTS);
      const data = (facts?.data ?? {}) as { argocd?: unknown; helm?: unknown; kustomize?: unknown };
      if (!facts || typeof data.argocd !== 'string' || typeof data.helm !== 'string' || typeof data.kustomize !== 'string') {
        ctx.fail(
          { file: facts ? ARGOCD_TOOLS_FACTS : `${ARGOCD_DIR}/kustomization.yaml` },
          `${ARGOCD_TOOLS_FACTS} must give argocd, helm and kustomize versions`,
        );
        return;
      }
      const kustomization = ctx.repo.dataFiles.get(`${ARGOCD_DIR}/kustomization.yaml`);
      const resources = list(dig(kustomization?.data, ['resources'])).map((r) => str(r));
      const index = resources.findIndex((r) => /argoproj\/argo-cd\/v\d/.test(r));
      const pinned = index === -1 ? undefined : /argo-cd\/(v[\d.]+)\//.exec(resources[index]!)?.[1];
      if (!pinned) ctx.fail({ file: `${ARGOCD_DIR}/kustomization.yaml` }, "the kustomization does not pin Argo CD's install manifest by release");
      else if (pinned !== data.argocd)
        ctx.fail(
          { data: kustomization!, path: ['resources', index] },
          `Argo CD ${pinned} is deployed, but ${ARGOCD_TOOLS_FACTS} records the tools of ${data.argocd}`,
        );
      const kustomize = PINNED_TOOLS.kubectl.kustomize.replace(/^v/, '');
      if (data.kustomize.replace(/^v/, '') !== kustomize)
        ctx.fail({ data: facts, path: ['kustomize'] }, `Argo CD ${data.argocd} renders with kustomize ${data.kustomize}, the gate with ${kustomize}`);
      if (minorOf(data.helm) !== minorOf(PINNED_TOOLS.helm.version))
        ctx.fail(
          { data: facts, path: ['helm'] },
          `Argo CD ${data.argocd} renders with Helm ${data.helm}, the gate with ${PINNED_TOOLS.helm.version.replace(/^v/, '')}: not the same minor`,
        );
    },
  },
];
