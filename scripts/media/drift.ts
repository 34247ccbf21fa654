/** What every settings area of every app answers: one field that differs, and how to make live equal declared. */
import type { HttpClient } from './http.ts';

export interface Drift {
  app: string;
  field: string;
  live: unknown;
  declared: unknown;
  fix: () => Promise<void>;
}

/** A changed field of one object: its name, the live value and the declared one. */
export type FieldChange = readonly [name: string, live: unknown, declared: unknown];

/**
 * One object's changed fields, a drift each: the first carries the one write that mends them all, the others only
 * report, so an apply writes the object once.
 */
export function changedFields(app: string, field: (name: string) => string, changed: readonly FieldChange[], write: () => Promise<void>): Drift[] {
  return changed.map(([name, live, declared], i) => ({ app, field: field(name), live, declared, fix: i === 0 ? write : async () => undefined }));
}

/** How a Servarr app keeps its own backups, as the settings files declare it. */
export interface BackupSettings {
  intervalDays: number;
  retentionDays: number;
  folder: string;
}

/** A Servarr app's own backup schedule and folder (its `config/host` under `apiBase`: /api/v3 for Sonarr and Radarr, /api/v1 for Prowlarr). */
export async function backupDrift(api: HttpClient, app: string, apiBase: string, s: BackupSettings): Promise<Drift[]> {
  const host = await api.get<Record<string, unknown>>(`${apiBase}/config/host`);
  const backup = { backupInterval: s.intervalDays, backupRetention: s.retentionDays, backupFolder: s.folder };
  const changed = Object.entries(backup)
    .filter(([k, v]) => host[k] !== v)
    .map(([k, v]): FieldChange => [k, host[k], v]);
  return changedFields(
    app,
    (k) => `backup.${k}`,
    changed,
    () => api.put(`${apiBase}/config/host/${String(host.id)}`, { ...host, ...backup }),
  );
}
