/**
 * The front door's `charts`: the chart cache as one object (`chartCache`: where it is, verify an archive against
 * the lock, pull every pinned chart and remote base, which charts are missing, prune what the lock no longer pins
 * and the renders no run reads), the lock's file name, and how long an unread render stays.
 */
export { chartCache, type PullOptions } from '../render/chart-cache.ts';
export { CHART_LOCK_FILE } from '../render/charts.ts';
export { UNREAD_DAYS } from '../render/cache.ts';
