/**
 * argocd-cm's health scripts for every kind but Applications (argocd-app-health runs theirs). Argo CD runs the script
 * that covers an object's group and kind on each live object it manages (controller/health.go setApplicationHealth,
 * util/lua GetHealthScript): one that does not load, or returns a status Argo CD does not know, makes every such
 * object Unknown, the worst health there is, and the app's health with it.
 */
import { groupOf, type Resource } from '../../model/core/manifest.ts';
import { healthOverrideFor, resourceOverrides, type HealthOverride } from '../../model/compare/resource-overrides.ts';
import { ARGOCD_CM_PATCH, argocdSettings, settingsPlace } from '../../model/controller/resource-filter.ts';
import { runHealthLua, SCRIPT_OVERGREW, SCRIPT_OVERRAN } from '../../model/compare/health-lua.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

/** What one script does on the objects it covers: the first object of each outcome, and how many more. */
interface Outcome {
  first: Resource;
  more: number;
}

const named = (r: Resource) => `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
const andMore = (o: Outcome) => `${named(o.first)}${o.more ? ` and ${o.more} more` : ''}`;

/** A run that hit the instruction or the memory bound, as its outcome reads: it would again, on any object. */
const STOPPED = new Set([`error\0${SCRIPT_OVERRAN}`, `error\0${SCRIPT_OVERGREW}`]);

/** An outcome's key: what went wrong and its detail, or how the status read. */
function outcomeOf(run: ReturnType<typeof runHealthLua>): string {
  if ('error' in run) return `${run.unloaded ? 'load' : 'error'}\0${run.error}`;
  if (run.unknownStatus === undefined) return 'fine';
  return run.unknownStatus ? `unknown\0${run.unknownStatus}` : 'none';
}

/** Runs each script on the objects it covers, once per object, and gathers what it returns by outcome. */
function outcomesByScript(resources: readonly Resource[], overrides: ReturnType<typeof resourceOverrides>): Map<HealthOverride, Map<string, Outcome>> {
  const out = new Map<HealthOverride, Map<string, Outcome>>();
  for (const resource of resources) {
    const group = groupOf(resource.apiVersion);
    // The Application's script is argocd-app-health's, run on an Application of each health it reports.
    if (group === 'argoproj.io' && resource.kind === 'Application') continue;
    const override = healthOverrideFor(overrides, group, resource.kind);
    if (!override) continue;
    let outcomes = out.get(override);
    if (!outcomes) out.set(override, (outcomes = new Map()));
    // A script that does not load fails alike on every object, and one that ran past a bound would again: a pull
    // request's `all` script that never ends, or eats memory, costs one bound, not one per object.
    const settled = [...outcomes.keys()].find((o) => o.startsWith('load\0') || STOPPED.has(o));
    const outcome = settled ?? outcomeOf(runHealthLua(override.healthLua, resource.object, override.useOpenLibs));
    const seen = outcomes.get(outcome);
    if (seen) seen.more += 1;
    else outcomes.set(outcome, { first: resource, more: 0 });
  }
  return out;
}

export const argocdHealthScriptsCheck: PolicyCheck = {
  id: 'argocd-health-scripts',
  description:
    "Every health script argocd-cm sets for a kind other than Application (resource.customizations.health.<group_kind>, the older map's health.lua, globs and `all` included) runs as Argo CD runs its Lua on each object it covers: it loads, and returns a status Argo CD knows, for Argo CD marks each object it cannot judge Unknown, and the app with it; where it fails on an object as first applied, before its controller writes a status, a warning (invariants P1).",
  invariants: ['P1'],
  remediation: `mend the script in ${ARGOCD_CM_PATCH}: Argo CD sets obj to the live object and gives string and math only with useOpenLibs; guard obj.status, and return {status = ...} with Healthy, Progressing, Degraded, Suspended, Missing or Unknown`,
  reads: {
    kinds: ['*'],
    everyKind: 'a health script covers the kinds its key names, and a glob or `all` covers any kind',
    files: [ARGOCD_CM_PATCH],
  },
  exemptible: false,
  run(ctx) {
    const settings = argocdSettings(ctx.resources, ctx.repo);
    if (!settings) return;
    for (const [override, outcomes] of outcomesByScript(ctx.resources, resourceOverrides(settings.data))) {
      const place = settingsPlace(settings, ['data', override.keys.health], 'key');
      if (!place) continue;
      const key = `argocd-cm's ${override.keys.health}`;
      for (const [outcome, objects] of outcomes) {
        const [what, detail] = outcome.split('\0');
        if (what === 'load')
          ctx.fail(place, `${key} does not load as Argo CD runs it (${detail}): ${andMore(objects)} get Unknown health for good, and their app with them`);
        else if (what === 'unknown')
          ctx.fail(
            place,
            `${key} returns status ${JSON.stringify(detail)} for ${andMore(objects)}, which Argo CD does not know: it marks them Unknown ("Lua returned an invalid health status"), and their app with them`,
          );
        else if (what === 'error')
          ctx.warn(
            place,
            `${key} fails on ${andMore(objects)} as the repository writes them (${detail}): Argo CD marks them Unknown, and their app, at least until their controller writes a status the script can read`,
          );
        else if (what === 'none')
          ctx.warn(
            place,
            `${key} returns no status for ${andMore(objects)} as the repository writes them: Argo CD marks them Unknown ("Lua returned an invalid health status"), at least until their controller writes a status the script reads`,
          );
      }
    }
  },
};
