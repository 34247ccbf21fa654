/** Served when no status file is mounted (a laptop, or before the writer's first run). */
import type { InfraStatus } from './status.ts';

export const SNAPSHOT: InfraStatus = {
  generatedAt: '2026-11-01T00:00:00.000Z',
  build: 'snapshot',
  argocd: { sync: 'Synced', health: 'Healthy' },
  nodes: { ready: 6, total: 6 },
  versions: { kubernetes: 'v1.36.3', talos: 'v1.13.9' },
  cert: { notAfter: '2027-01-30T00:00:00.000Z' },
  history: [],
  source: 'snapshot',
};
