/**
 * What a chart bump changes that no rendered line shows: the chart's default
 * values that moved between the two versions where this repository does not
 * set them (old -> new), and the keys this repository sets that the new
 * version no longer reads. Read from the two snapshots' chart faces
 * (policy-tests/gate/chart-faces.ts).
 */
import type { Snapshot } from '../../policy-tests/index.ts';

export interface ChartBump {
  app: string;
  chart: string;
  /** The wrapper chart's folder, where one of the repository depends on it. */
  dependencyOf?: string;
  /** The alias the wrapper gives it, where it gives one. */
  alias?: string;
  from: string;
  to: string;
  /** Defaults that changed, where the repository sets nothing at or under or above the path. */
  defaults: { path: string; from?: string; to?: string }[];
  /** Keys the repository sets that the new version neither declares nor reads, and the old one did. */
  unread: string[];
}

export function chartBumps(base: Snapshot, head: Snapshot): ChartBump[] {
  const out: ChartBump[] = [];
  for (const [key, now] of head.charts ?? []) {
    const before = base.charts?.get(key);
    if (!before || before.chart !== now.chart || before.version === now.version) continue;
    const set = now.set;
    const overridden = (path: string) => set.some((s) => s === path || s.startsWith(`${path}.`) || path.startsWith(`${s}.`));
    const paths = [...new Set([...Object.keys(before.defaults), ...Object.keys(now.defaults)])].sort();
    const defaults = paths
      .filter((p) => before.defaults[p] !== now.defaults[p] && !overridden(p))
      .map((path) => ({
        path,
        ...(before.defaults[path] === undefined ? {} : { from: before.defaults[path] }),
        ...(now.defaults[path] === undefined ? {} : { to: now.defaults[path] }),
      }));
    const unread = now.unread.filter((p) => !before.unread.includes(p));
    const { app, dependencyOf, alias } = now;
    out.push({
      app,
      chart: now.chart,
      ...(dependencyOf === undefined ? {} : { dependencyOf }),
      ...(alias === undefined ? {} : { alias }),
      from: before.version,
      to: now.version,
      defaults,
      unread,
    });
  }
  return out.sort((a, b) => a.app.localeCompare(b.app));
}
