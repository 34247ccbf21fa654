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
