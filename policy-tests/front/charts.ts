/** The front door's `charts`: the chart cache and its lock (`chartCache`: path, verify, admit, record), and the pinned remote bases (npm run charts:pull, the benchmarks). */
export { chartCache } from '../render/chart-cache.ts';
export {
  cachedChartPath,
  chartCacheDir,
  CHART_LOCK_FILE,
  chartId,
  digestOf,
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
