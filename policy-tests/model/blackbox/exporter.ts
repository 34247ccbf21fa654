/**
 * Where the blackbox exporter's configuration is: the `blackbox.yaml` key of the ConfigMap its chart renders from the
 * values' `config` (or of the Secret, `secretConfig: true`), which the exporter's pod mounts at /config.
 */
import { parse } from 'yaml';
import { dig } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import { secretEntries } from '../core/secrets.ts';

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
  const found = writtenConfig(r);
  const config = found && { ...found, parsed: parseConfig(found.text) };
  parsedConfigs.set(r.object, config);
  return config;
}

function parseConfig(text: string): BlackboxConfig['parsed'] {
  try {
    return { doc: parse(text) as unknown };
  } catch (err) {
    return { error: (err as Error).message.split('\n')[0] ?? '' };
  }
}

function writtenConfig(r: Resource): { text: string; path: string[] } | undefined {
  if (r.kind === 'ConfigMap') {
    const text = dig(r.object, ['data', BLACKBOX_CONFIG_KEY]);
    return typeof text === 'string' ? { text, path: ['data', BLACKBOX_CONFIG_KEY] } : undefined;
  }
  const entry = r.kind === 'Secret' ? secretEntries(r.object).findLast((e) => e.key === BLACKBOX_CONFIG_KEY) : undefined;
  return entry && { text: entry.value, path: [entry.field, BLACKBOX_CONFIG_KEY] };
}
