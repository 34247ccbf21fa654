/**
 * The spec's Limits table, as named constants. Plain numbers with no runtime
 * dependencies, so the gate can import them to check the Alertmanager wiring.
 */

/** "watchdog silence threshold: 15 min". */
export const HEARTBEAT_SILENCE_MS = 15 * 60_000;
/** "watchdog heartbeat period: 5 min" (Alertmanager's repeat interval for Watchdog). */
export const HEARTBEAT_PERIOD_MS = 5 * 60_000;
/** "watchdog site check: three one-minute failures". */
export const SITE_FAILURES_FOR_DOWN = 3;
/** The route Alertmanager posts heartbeats to. */
export const HEARTBEAT_PATH = '/heartbeat';
