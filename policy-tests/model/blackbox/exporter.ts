/**
 * Where the blackbox exporter's configuration is: the `blackbox.yaml` key of the ConfigMap its chart renders from the
 * values' `config` (or of the Secret, `secretConfig: true`), which the exporter's pod mounts at /config.
 */
import type { Resource } from '../core/manifest.ts';
import { parseRenderedFile, renderedFile } from '../helm/chart-output.ts';

export const BLACKBOX_CHART = 'prometheus-blackbox-exporter';
export const BLACKBOX_CONFIG_KEY = 'blackbox.yaml';

export interface BlackboxConfig {
  text: string;
  /** Where in the object it is written. */
  path: string[];
  /** The document, or the first line of the parser's error where it is no YAML. */
  parsed: { doc: unknown } | { error: string };
}

/** Each object's configuration, parsed once: two checks read it. Never mutated. */
const parsedConfigs = new WeakMap<object, BlackboxConfig | undefined>();

/** The blackbox.yaml a ConfigMap or Secret holds, where in it (a Secret's stringData wins over its data), and its document; undefined where it holds none. */
export function blackboxConfig(r: Resource): BlackboxConfig | undefined {
  if (parsedConfigs.has(r.object)) return parsedConfigs.get(r.object);
  const found = renderedFile(r, BLACKBOX_CONFIG_KEY);
  const config = found && { ...found, parsed: parseRenderedFile(found.text) };
  parsedConfigs.set(r.object, config);
  return config;
}
