/**
 * Alarm state kept in KV. Each watched thing (the heartbeat, each site) has an
 * up/down status and a queue of chat messages not yet delivered: a transition
 * appends to the queue, and the queue is flushed in order, so a chat outage
 * delays messages but never drops or reorders them, and a state that holds
 * never alarms twice.
 */
export const HEARTBEAT_KEY = 'heartbeat';
export const HEARTBEAT_STATE_KEY = 'state:heartbeat';
export const siteStateKey = (url: string) => `state:site:${url}`;

export interface WatchState {
  status: 'up' | 'down';
  /** When the current status began (ISO). */
  since: string;
  /** Consecutive failed checks (sites only). */
  failures: number;
  lastError?: string;
  /** Messages owed to the chat channel, oldest first. */
  pending: string[];
}

export function initialState(now: number): WatchState {
  return { status: 'up', since: new Date(now).toISOString(), failures: 0, pending: [] };
}

export async function readState(kv: KVNamespace, key: string, now: number): Promise<WatchState> {
  const raw = await kv.get(key);
  if (!raw) return initialState(now);
  try {
    const parsed = JSON.parse(raw) as Partial<WatchState>;
    if (parsed.status !== 'up' && parsed.status !== 'down') return initialState(now);
    return {
      status: parsed.status,
      since: String(parsed.since ?? new Date(now).toISOString()),
      failures: Number(parsed.failures ?? 0),
      lastError: parsed.lastError,
      pending: Array.isArray(parsed.pending) ? parsed.pending.map(String) : [],
    };
  } catch {
    return initialState(now);
  }
}

export async function writeState(kv: KVNamespace, key: string, state: WatchState): Promise<void> {
  await kv.put(key, JSON.stringify(state));
}

/** Moves to `status` if it differs, queueing `message`. Returns whether a transition happened. */
export function transition(state: WatchState, status: 'up' | 'down', now: number, message: string): boolean {
  if (state.status === status) return false;
  state.status = status;
  state.since = new Date(now).toISOString();
  state.pending.push(message);
  return true;
}
