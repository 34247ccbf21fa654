/**
 * The values a chart receives, as Helm 4 makes them: the user's layers (the
 * value files in order, then what the Application carries) merged one over
 * the other (MergeValues, through loader.MergeMaps: maps merged key by key,
 * anything else replaced, a null too), then coalesced onto the chart's
 * defaults, where a null removes a key the defaults have (one they lack
 * stays null).
 * A finding on a merged path points at the layer that set it last, in its own
 * file, so a check reads one set of values and a person still reads the line
 * they wrote.
 */
import type { FilePosition } from '../core/manifest.ts';
import type { Path } from '../core/positions.ts';
import type { DataFile } from '../repository/repo.ts';
import { mergeMaps } from '../yaml/helm-values.ts';
import { depthIn, isMap } from '../core/dig.ts';

type Values = Record<string, unknown>;

/** `over` coalesced onto `base`, as Helm coalesces one layer of values onto the one before. */
export function coalesce(base: Values, over: Values): Values {
  const out: Values = { ...base };
  for (const [k, v] of Object.entries(over)) {
    // A null removes a key the base has; one the base lacks stays null (coalesceTablesFullKey).
    if (v === null) {
      if (Object.hasOwn(base, k)) delete out[k];
      else out[k] = null;
    } else out[k] = isMap(v) && isMap(out[k]) ? coalesce(out[k], v) : v;
  }
  return out;
}

/**
 * One data file over every layer: the user's layers merged, coalesced onto the chart's `defaults` where they are
 * known, each path's position in the last layer that sets it (or its nearest parent).
 */
export function mergedValues(userLayers: readonly DataFile[], defaults?: DataFile): DataFile {
  const layers = defaults ? [defaults, ...userLayers] : userLayers;
  if (layers.length === 1) return layers[0]!;
  const user = userLayers.reduce<Values>((acc, layer) => mergeMaps(acc, isMap(layer.data) ? layer.data : {}), {});
  const data = coalesce(defaults && isMap(defaults.data) ? defaults.data : {}, user);
  const at = (path: Path, target: 'key' | 'value'): FilePosition => {
    for (let n = path.length; n >= 0; n--)
      for (let i = layers.length - 1; i >= 0; i--) {
        const layer = layers[i]!;
        if (n > 0 && depthIn(layer.data, path) < n) continue;
        if (n === 0 && i !== 0) continue;
        return { file: layer.file, ...layer.positions.at(path.slice(0, n), target) };
      }
    return { file: layers[0]!.file, line: 1, col: 1 };
  };
  return { file: layers[0]!.file, data, positions: { at }, errors: layers.flatMap((l) => l.errors) };
}
