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

export const RULES_PLUGIN = { name: 'container', required: '0.4.0', ref: 'ghcr.io/falcosecurity/plugins/plugin/container' } as const;

/** Compatible as Falco judges required_plugin_versions: the same major, and not older. */
export function compatibleVersion(actual: string, required: string): boolean {
  const parse = (v: string) => v.replace(/^v/, '').split(/[.-]/).slice(0, 3).map(Number);
  const [a, r] = [parse(actual), parse(required)];
  if (a.some(Number.isNaN) || a[0] !== r[0]) return false;
  for (let i = 1; i < 3; i++) if (a[i] !== r[i]) return a[i]! > r[i]!;
  return true;
}

/** Problems with a plugin ref such as `ghcr.io/falcosecurity/plugins/plugin/container:0.7.1`. */
export function pluginRefProblem(ref: string): string | undefined {
  const at = ref.lastIndexOf(':');
  const [repo, tag] = at > ref.lastIndexOf('/') ? [ref.slice(0, at), ref.slice(at + 1)] : [ref, ''];
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
  const tag = typeof ref === 'string' && ref.lastIndexOf(':') > ref.lastIndexOf('/') ? ref.slice(ref.lastIndexOf(':') + 1) : undefined;
  return tag ? [{ name: RULES_PLUGIN.name, version: tag }] : undefined;
}

/**
 * A rules file's required_plugin_versions, as Falco reads them and checks them at start against the plugins each
 * sensor's values load (not judged where the values do not say), each refusal at its place with what follows.
 */
export function pluginRequirementRefusals(repo: Repo, items: readonly TuningItem[]): { item: TuningItem; path: Path; message: string }[] {
  const { requirements, problems } = pluginRequirements(items);
  const out = problems.map((p) => ({ ...p, message: `${p.message}: Falco refuses the rules file at start, and does not run` }));
  for (const sensor of chartValues(repo, 'falco'))
    for (const r of requirements) {
      const loaded = loadedPluginVersions(sensor.values);
      const unmet = loaded && unmetRequirement(r, loaded);
      const load = loaded?.map((l) => `${l.name} ${l.version}`).join(', ') || 'no plugin';
      if (unmet) out.push({ item: r.item, path: r.path, message: `${unmet} (the ${sensor.appName} values load ${load}): Falco does not start` });
    }
  return out;
}
