/**
 * The spec's Limits table, read from facts/limits.json: data, so
 * the gate reads the same figures from the repository (checks/watchdog.ts)
 * without importing the worker's code.
 */
import limits from '../facts/limits.json' with { type: 'json' };

/** "watchdog silence threshold: 15 min". */
export const HEARTBEAT_SILENCE_MS = limits.heartbeatSilenceMinutes * 60_000;
/** "watchdog heartbeat period: 5 min" (Alertmanager's repeat interval for Watchdog). */
export const HEARTBEAT_PERIOD_MS = limits.heartbeatPeriodMinutes * 60_000;
/** "watchdog site check: three one-minute failures". */
export const SITE_FAILURES_FOR_DOWN = limits.siteFailuresForDown;
/** The route Alertmanager posts heartbeats to. */
export const HEARTBEAT_PATH = limits.heartbeatPath;
