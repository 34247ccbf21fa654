/**
 * A rules file's `required_plugin_versions` as Falco 0.44 reads and checks them: the reader (rule_loader_reader.cpp)
 * wants a sequence of mappings, each a plugin's name and version, with its `alternatives` a sequence of the same; the
 * collector (rule_loader_collector.cpp) wants each version one sinsp_version reads and no name twice among a
 * requirement's alternatives; and at start (falco_engine.cpp check_plugin_requirements) each requirement is met by
 * the first of its alternatives that names a loaded plugin, whose version is compatible (the same major, not older).
 * Any refusal stops Falco at start.
 */
import type { Path } from '../core/positions.ts';
import { scalarText } from '../core/text.ts';
import { requiredScalar } from './reader.ts';
import type { TuningItem } from './tuning.ts';
import { compatibleWith, sinspVersion } from './versions.ts';

export interface PluginVersion {
  name: string;
  version: string;
}

/** One requirement of an item: its alternatives (the plugin it names first), and where it is written. */
export interface PluginRequirement {
  item: TuningItem;
  path: Path;
  alternatives: PluginVersion[];
}

const isMapping = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A plugin's name and version as decode_val reads them, or the refusal. */
function pluginVersion(value: unknown, what: string): { plugin?: PluginVersion; problem?: string } {
  if (!isMapping(value)) return { problem: `${what} must be a mapping` };
  const missing = requiredScalar(value, 'name') ?? requiredScalar(value, 'version');
  return missing ? { problem: missing } : { plugin: { name: scalarText(value.name), version: scalarText(value.version) } };
}

/** Each requirement of the file's items, and each refusal of the reader and the collector, at its place. */
export function pluginRequirements(items: readonly TuningItem[]): {
  requirements: PluginRequirement[];
  problems: { item: TuningItem; path: Path; message: string }[];
} {
  const requirements: PluginRequirement[] = [];
  const problems: { item: TuningItem; path: Path; message: string }[] = [];
  for (const item of items.filter((i) => i.type === 'other' && 'required_plugin_versions' in i.raw)) {
    const all = item.raw.required_plugin_versions;
    const refuse = (path: Path, message: string) => problems.push({ item, path: ['required_plugin_versions', ...path], message });
    if (!Array.isArray(all)) {
      refuse([], 'Value of required_plugin_versions must be a sequence');
      continue;
    }
    all.forEach((entry: unknown, i) => {
      const main = pluginVersion(entry, 'Plugin version');
      if (!main.plugin) return refuse([i], main.problem!);
      const more = (entry as Record<string, unknown>).alternatives;
      if (more !== undefined && !Array.isArray(more)) return refuse([i, 'alternatives'], 'Value of plugin version alternatives must be a sequence');
      const alternatives = [main.plugin];
      for (const [j, alt] of ((more as unknown[] | undefined) ?? []).entries()) {
        const read = pluginVersion(alt, 'Plugin version alternative');
        if (!read.plugin) return refuse([i, 'alternatives', j], read.problem!);
        alternatives.push(read.plugin);
      }
      const invalid = alternatives.find((a) => !sinspVersion(a.version));
      if (invalid) return refuse([i], `Invalid required version '${invalid.version}' for plugin '${invalid.name}'`);
      const twice = alternatives.find((a, k) => alternatives.findIndex((b) => b.name === a.name) !== k);
      if (twice) return refuse([i], `Defined multiple alternative version requirements for plugin '${twice.name}'`);
      requirements.push({ item, path: ['required_plugin_versions', i], alternatives });
    });
  }
  return { requirements, problems };
}

/** Why the loaded plugins do not meet a requirement, in Falco's words; undefined where they do. */
export function unmetRequirement(requirement: PluginRequirement, loaded: readonly PluginVersion[]): string | undefined {
  for (const req of requirement.alternatives) {
    const plugin = loaded.find((p) => p.name === req.name);
    if (!plugin) continue;
    const version = sinspVersion(plugin.version);
    if (!version) return `Plugin '${plugin.name}' has invalid version string '${plugin.version}'`;
    return compatibleWith(version, sinspVersion(req.version)!)
      ? undefined
      : `Plugin '${plugin.name}' version '${plugin.version}' is not compatible with required plugin version '${req.version}'`;
  }
  return `Plugin requirement not satisfied, must load one of: ${requirement.alternatives.map((r) => `${r.name} (>= ${r.version})`).join(', ')}`;
}
