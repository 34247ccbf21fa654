/** The front door's `charts`: the chart cache and its lock, and the pinned remote bases (npm run charts:pull, the benchmarks). */
export {
  cachedChartPath,
  chartCacheDir,
  CHART_LOCK_FILE,
  chartId,
  digestOf,
  formatLock,
  isOciRepo,
  lockEntryFor,
  pendingEntryFor,
  pinnedCharts,
  readLock,
  remoteEntryFor,
  type ChartLock,
  type ChartRef,
  type LockEntry,
} from '../render/charts.ts';
export { assertAllowedHost, fetchRemote, pinnedRemotes, remoteDigest, type RemoteEntry } from '../render/remote-bases.ts';
