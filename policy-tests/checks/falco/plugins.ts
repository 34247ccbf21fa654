/**
 * Which plugins the sensor may load, judged on the values and, when the
 * chart is rendered, on the falco.yaml and falcoctl.yaml it renders. Falco
 * chart 7 turns the container metadata plugin on by default, and falco-rules
 * 5 requires it (its required_plugin_versions: container 0.4.0). The
 * invariant "syscalls are the only event source" therefore reads: no source
 * plugin (k8saudit, cloudtrail, ...) and no other plugin at all; the
 * container plugin, an extractor that produces no events, is the one
 * allowed, at a version compatible with the one the rules require.
 */
import { parse } from 'yaml';
import type { Resource } from '../../model/core/manifest.ts';
import type { SourceRender } from '../../model/argocd/rendered.ts';
import type { Path } from '../../model/core/positions.ts';
import type { Repo } from '../../model/repository/repo.ts';
import type { TuningItem } from '../../model/falco/tuning.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { pluginRequirements, unmetRequirement } from '../../model/falco/plugin-requirements.ts';
import { compatibleWith, sinspVersion } from '../../model/falco/versions.ts';

export const RULES_PLUGIN = { name: 'container', required: '0.4.0', ref: 'ghcr.io/falcosecurity/plugins/plugin/container' } as const;

/** Compatible as Falco judges required_plugin_versions (sinsp_version, model/falco/versions.ts), a tag's `v` aside. */
function compatibleVersion(actual: string, required: string): boolean {
  const [a, r] = [sinspVersion(actual.replace(/^v/, '')), sinspVersion(required)];
  return a !== undefined && r !== undefined && compatibleWith(a, r);
}

/** A plugin ref's repository and tag (`ghcr.io/.../container:0.7.1`); the tag empty where the ref names none. */
function refParts(ref: string): { repo: string; tag: string } {
  const at = ref.lastIndexOf(':');
  return at > ref.lastIndexOf('/') ? { repo: ref.slice(0, at), tag: ref.slice(at + 1) } : { repo: ref, tag: '' };
}

/** Problems with a plugin ref such as `ghcr.io/falcosecurity/plugins/plugin/container:0.7.1`. */
export function pluginRefProblem(ref: string): string | undefined {
  const { repo, tag } = refParts(ref);
  if (repo !== RULES_PLUGIN.ref) return `${ref} is not the container plugin falco-rules 5 requires (${RULES_PLUGIN.ref})`;
  if (!compatibleVersion(tag, RULES_PLUGIN.required))
    return `${ref}: falco-rules 5 requires container ${RULES_PLUGIN.required} or a compatible later version, got "${tag || 'no tag'}"`;
  return undefined;
}

/** Plugin names other than the container plugin, each a problem. */
export function extraPlugins(names: readonly unknown[]): string[] {
  return names.map(String).filter((n) => n !== RULES_PLUGIN.name);
}

export interface RenderedFalco {
  resource: Resource;
  key: string;
  data: Record<string, unknown>;
}

/** The falco.yaml or falcoctl.yaml the falco chart rendered, parsed; undefined when the chart is not rendered. */
export function renderedFalcoFile(renders: readonly SourceRender[], key: 'falco.yaml' | 'falcoctl.yaml'): RenderedFalco | undefined {
  const render = renders.find((r) => r.source.chart === 'falco' && r.status === 'rendered');
  const resource = render?.resources.find((r) => r.kind === 'ConfigMap' && typeof (r.object.data as Record<string, unknown> | undefined)?.[key] === 'string');
  if (!resource) return undefined;
  try {
    const data = parse((resource.object.data as Record<string, string>)[key]!) as unknown;
    return { resource, key, data: data && typeof data === 'object' ? (data as Record<string, unknown>) : {} };
  } catch {
    return { resource, key, data: {} };
  }
}

/**
 * The plugins the sensor loads with their versions, as its values give them: the container plugin at its pluginRef's
 * tag where the container engine collector is on and nothing else is loaded; undefined where the values do not say
 * (no tag, another plugin), and a rules file's requirements are then not judged.
 */
export function loadedPluginVersions(values: unknown): { name: string; version: string }[] | undefined {
  const v = (values ?? {}) as { collectors?: { containerEngine?: { enabled?: unknown; pluginRef?: unknown } }; falco?: { load_plugins?: unknown } };
  if (Array.isArray(v.falco?.load_plugins) && extraPlugins(v.falco.load_plugins).length > 0) return undefined;
  if (v.collectors?.containerEngine?.enabled === false) return [];
  const ref = v.collectors?.containerEngine?.pluginRef;
  const tag = typeof ref === 'string' ? refParts(ref).tag : '';
  return tag ? [{ name: RULES_PLUGIN.name, version: tag }] : undefined;
}

/**
 * A rules file's required_plugin_versions, as Falco reads them and checks them at start against the plugins each
 * sensor's values load (not judged where the values do not say), each refusal at its place with what follows.
 */
export function pluginRequirementRefusals(repo: Repo, items: readonly TuningItem[]): { item: TuningItem; path: Path; message: string }[] {
  const { requirements, problems } = pluginRequirements(items);
  const out = problems.map((p) => ({ ...p, message: `${p.message}: Falco refuses the rules file at start, and does not run` }));
  for (const sensor of chartValues(repo, 'falco')) {
    const loaded = loadedPluginVersions(sensor.values);
    if (!loaded) continue;
    const load = loaded.map((l) => `${l.name} ${l.version}`).join(', ') || 'no plugin';
    for (const r of requirements) {
      const unmet = unmetRequirement(r, loaded);
      if (unmet) out.push({ item: r.item, path: r.path, message: `${unmet} (the ${sensor.appName} values load ${load}): Falco does not start` });
    }
  }
  return out;
}
