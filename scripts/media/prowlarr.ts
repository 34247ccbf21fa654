/** Prowlarr's API (v1): per-indexer seed criteria, the apps it syncs indexers to, and backups. */
import type { HttpClient } from './http.ts';
import { applicationsDrift, type ProwlarrApplication } from './prowlarr-apps.ts';
import { backupDrift, changedFields, type BackupSettings, type Drift, type FieldChange } from './drift.ts';

export interface ProwlarrSettings {
  app: 'prowlarr';
  /** Prowlarr's address as the managers reach it: every indexer it syncs points them there. */
  prowlarrUrl: string;
  indexers: { name: string; seedRatio: number | null; seedTime: number | null }[];
  applications: ProwlarrApplication[];
  backup: BackupSettings;
}

interface Indexer {
  id: number;
  name: string;
  fields: { name: string; value?: unknown }[];
}

const SEED_RATIO = 'torrentBaseSettings.seedRatio';
const SEED_TIME = 'torrentBaseSettings.seedTime';

/** `keyOf` gives a manager's API key by its media-settings instance: app sync sends it to the manager. */
export async function prowlarrDrift(api: HttpClient, s: ProwlarrSettings, keyOf: (instance: string) => string | undefined): Promise<Drift[]> {
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
    const changed = wanted.filter(([name, v]) => value(name) !== v).map(([name, v]): FieldChange => [name, value(name), v]);
    const desired = {
      ...live,
      fields: [...live.fields.filter((f) => f.name !== SEED_RATIO && f.name !== SEED_TIME), ...wanted.map(([name, v]) => ({ name, value: v }))],
    };
    drift.push(
      ...changedFields(
        'prowlarr',
        (name) => `indexers[${want.name}].${name}`,
        changed,
        () => api.put(`/api/v1/indexer/${live.id}`, desired),
      ),
    );
  }
  drift.push(...(await applicationsDrift(api, { prowlarrUrl: s.prowlarrUrl, applications: s.applications, keyOf })));
  drift.push(...(await backupDrift(api, 'prowlarr', '/api/v1', s.backup)));
  return drift;
}
