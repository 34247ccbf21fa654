/**
 * Where the blackbox exporter's configuration is: the `blackbox.yaml` key of the ConfigMap its chart renders from the
 * values' `config` (or of the Secret, `secretConfig: true`), which the exporter's pod mounts at /config.
 */
import { dig } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import { secretEntries } from '../core/secrets.ts';

export const BLACKBOX_CHART = 'prometheus-blackbox-exporter';
export const BLACKBOX_CONFIG_KEY = 'blackbox.yaml';

/** The blackbox.yaml a ConfigMap or Secret holds, and where in it (a Secret's stringData wins over its data), or undefined. */
export function blackboxConfig(r: Resource): { text: string; path: string[] } | undefined {
  if (r.kind === 'ConfigMap') {
    const text = dig(r.object, ['data', BLACKBOX_CONFIG_KEY]);
    return typeof text === 'string' ? { text, path: ['data', BLACKBOX_CONFIG_KEY] } : undefined;
  }
  const entry = r.kind === 'Secret' ? secretEntries(r.object).findLast((e) => e.key === BLACKBOX_CONFIG_KEY) : undefined;
  return entry && { text: entry.value, path: [entry.field, BLACKBOX_CONFIG_KEY] };
}
