/**
 * Composes the infrastructure status from what the cluster reports, rolling
 * the 30-day history forward from the previous status. Pure: no I/O, no clock.
 */
import type { InfraStatus } from '../infra/status.ts';

export const HISTORY_DAYS = 30;

export interface Observations {
  now: Date;
  build: string;
  argocd: { sync: string; health: string };
  nodes: { ready: number; total: number };
  versions: { kubernetes: string; talos: string };
  certNotAfter: string;
}

/** One check passes when Argo CD is synced and healthy and every node is ready. */
export function checkPassed(obs: Observations): boolean {
  return obs.argocd.sync === 'Synced' && obs.argocd.health === 'Healthy' && obs.nodes.total > 0 && obs.nodes.ready === obs.nodes.total;
}

function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function rollHistory(previous: InfraStatus['history'], now: Date, passed: boolean): InfraStatus['history'] {
  const today = day(now);
  const oldest = day(new Date(now.getTime() - (HISTORY_DAYS - 1) * 86_400_000));
  const byDay = new Map(previous.filter((h) => h.d >= oldest && h.d <= today).map((h) => [h.d, { ...h }]));
  const entry = byDay.get(today) ?? { d: today, ok: 0, total: 0 };
  entry.total += 1;
  if (passed) entry.ok += 1;
  byDay.set(today, entry);
  return [...byDay.values()].sort((a, b) => a.d.localeCompare(b.d)).slice(-HISTORY_DAYS);
}

export function composeStatus(obs: Observations, previous?: InfraStatus): InfraStatus {
  return {
    generatedAt: obs.now.toISOString(),
    build: obs.build,
    argocd: obs.argocd,
    nodes: obs.nodes,
    versions: obs.versions,
    cert: { notAfter: new Date(obs.certNotAfter).toISOString() },
    history: rollHistory(previous?.history ?? [], obs.now, checkPassed(obs)),
  };
}
