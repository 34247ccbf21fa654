/** Prowlarr's API (v1): per-indexer seed criteria and backups. */
import type { HttpClient } from './http.ts';
import type { Drift } from './servarr.ts';

export interface ProwlarrSettings {
  app: 'prowlarr';
  indexers: { name: string; seedRatio: number | null; seedTime: number | null }[];
  backup: { intervalDays: number; retentionDays: number; folder: string };
}

interface Indexer {
  id: number;
  name: string;
  fields: { name: string; value?: unknown }[];
}

const SEED_RATIO = 'torrentBaseSettings.seedRatio';
const SEED_TIME = 'torrentBaseSettings.seedTime';

export async function prowlarrDrift(api: HttpClient, s: ProwlarrSettings): Promise<Drift[]> {
  const drift: Drift[] = [];
  const indexers = await api.get<Indexer[]>('/api/v1/indexer');
  for (const want of s.indexers) {
    const live = indexers.find((i) => i.name === want.name);
    if (!live) {
      drift.push({
        app: 'prowlarr',
        field: `indexers[${want.name}]`,
        live: 'absent',
        declared: 'present (add it in Prowlarr; indexer credentials are not in the repo)',
        fix: async () => undefined,
      });
      continue;
    }
    const value = (name: string) => live.fields.find((f) => f.name === name)?.value ?? null;
    const wanted: [string, unknown][] = [
      [SEED_RATIO, want.seedRatio],
      [SEED_TIME, want.seedTime],
    ];
    const changed = wanted.filter(([name, v]) => value(name) !== v);
    const desired = {
      ...live,
      fields: [...live.fields.filter((f) => f.name !== SEED_RATIO && f.name !== SEED_TIME), ...wanted.map(([name, v]) => ({ name, value: v }))],
    };
    changed.forEach(([name, v], i) =>
      drift.push({
        app: 'prowlarr',
        field: `indexers[${want.name}].${name}`,
        live: value(name),
        declared: v,
        fix: i === 0 ? () => api.put(`/api/v1/indexer/${live.id}`, desired) : async () => undefined,
      }),
    );
  }
  const host = await api.get<Record<string, unknown>>('/api/v1/config/host');
  const backup = { backupInterval: s.backup.intervalDays, backupRetention: s.backup.retentionDays, backupFolder: s.backup.folder };
  Object.entries(backup)
    .filter(([k, v]) => host[k] !== v)
    .forEach(([k, v], i) =>
      drift.push({
        app: 'prowlarr',
        field: `backup.${k}`,
        live: host[k],
        declared: v,
        fix: i === 0 ? () => api.put(`/api/v1/config/host/${String(host.id)}`, { ...host, ...backup }) : async () => undefined,
      }),
    );
  return drift;
}
