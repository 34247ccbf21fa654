/**
 * The backup sentinel: a random id and time written into the source just
 * before each backup and recorded in its manifest. A restore proves which
 * backup it came from by the sentinel it carries; a drill that restores an
 * older backup than the newest one taken sees a different id.
 */
import { randomUUID } from 'node:crypto';

export interface Sentinel {
  id: string;
  at: string;
}

export const newSentinel = (now: Date): Sentinel => ({ id: randomUUID(), at: now.toISOString() });

/** The one-line text form engines store where they have no table (etcd): "<id> <ISO time>". */
export const sentinelText = (s: Sentinel) => `${s.id} ${s.at}`;

/** Finds the text form inside any bytes (a ConfigMap stored as JSON or protobuf keeps the string verbatim). */
export function findSentinelText(data: string): Sentinel | undefined {
  const m = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[\w.-]+) (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)/.exec(data);
  return m ? { id: m[1]!, at: m[2]! } : undefined;
}

export const isNewer = (a: Sentinel | undefined, b: Sentinel) => a !== undefined && Date.parse(a.at) > Date.parse(b.at);
