/**
 * Prowlarr's app sync (API v1 `applications`, read at v2.1.5): the managers it pushes indexers
 * to. A synced app is a provider (provider.ts): its stored API key is answered as `********`,
 * and the app's own test (the manager called with the stored key, calling Prowlarr back at
 * `prowlarrUrl`) says whether it works.
 */
import type { HttpClient } from './http.ts';
import { fieldOf, MASKED, secretNeeded, secretTestDrift, withFields, type ProviderField } from './provider.ts';
import { changedFields, type Drift, type FieldChange } from './drift.ts';

export interface ProwlarrApplication {
  name: string;
  implementation: 'Sonarr' | 'Radarr';
  baseUrl: string;
  syncLevel: 'disabled' | 'addOnly' | 'fullSync';
  syncCategories: number[];
  /** The media-settings instance whose MEDIA_<INSTANCE>_API_KEY is the manager's key (the store's `api-key`). */
  keyFrom: string;
}

interface LiveApplication {
  id: number;
  name: string;
  implementation: string;
  syncLevel: string;
  fields: ProviderField[];
  [other: string]: unknown;
}

const sorted = (list: readonly number[]) => [...list].sort((x, y) => x - y).join(',');
const sameCategories = (live: unknown, declared: number[]) => Array.isArray(live) && sorted(live as number[]) === sorted(declared);
const trimSlash = (url: unknown) => (typeof url === 'string' ? url.replace(/\/+$/, '') : url);

/** The body Prowlarr takes for one app: the declared fields over the live ones, with the key when it is known. */
function desiredBody(want: ProwlarrApplication, prowlarrUrl: string, apiKey: string | undefined, live?: LiveApplication) {
  const declared: Record<string, unknown> = { prowlarrUrl, baseUrl: want.baseUrl, apiKey: apiKey ?? MASKED, syncCategories: want.syncCategories };
  return {
    ...(live ?? { tags: [] }),
    name: want.name,
    implementation: want.implementation,
    implementationName: want.implementation,
    configContract: `${want.implementation}Settings`,
    syncLevel: want.syncLevel,
    fields: withFields(live?.fields ?? [], declared),
  };
}

export interface AppSyncInput {
  prowlarrUrl: string;
  applications: ProwlarrApplication[];
  /** The manager's API key for an instance, as media-settings holds it (undefined when its variable is not set). */
  keyOf: (instance: string) => string | undefined;
}

/** Each declared app present with its fields and passing its test; every undeclared one removed. */
export async function applicationsDrift(api: HttpClient, input: AppSyncInput): Promise<Drift[]> {
  const { prowlarrUrl, applications, keyOf } = input;
  const drift: Drift[] = [];
  const live = await api.get<LiveApplication[]>('/api/v1/applications');
  const keyNeeded = (want: ProwlarrApplication, why: string): string =>
    secretNeeded(keyOf(want.keyFrom), `${why} needs ${want.implementation}'s API key`, `the variable for ${want.keyFrom} (MEDIA_<INSTANCE>_API_KEY)`);
  for (const want of applications) {
    const app = live.find((a) => a.name.toLowerCase() === want.name.toLowerCase());
    const field = `applications[${want.name}]`;
    if (!app) {
      drift.push({
        app: 'prowlarr',
        field,
        live: 'absent',
        declared: `${want.implementation} at ${want.baseUrl}, ${want.syncLevel}`,
        fix: () => api.post('/api/v1/applications', desiredBody(want, prowlarrUrl, keyNeeded(want, 'adding it'))),
      });
      continue;
    }
    const diffs: FieldChange[] = (
      [
        ['implementation', app.implementation, want.implementation],
        ['syncLevel', app.syncLevel, want.syncLevel],
        ['prowlarrUrl', trimSlash(fieldOf(app, 'prowlarrUrl')), trimSlash(prowlarrUrl)],
        ['baseUrl', trimSlash(fieldOf(app, 'baseUrl')), trimSlash(want.baseUrl)],
      ] as FieldChange[]
    ).filter(([, l, d]) => l !== d);
    if (!sameCategories(fieldOf(app, 'syncCategories'), want.syncCategories))
      diffs.push(['syncCategories', fieldOf(app, 'syncCategories'), want.syncCategories]);
    // One PUT carries every change, with the store's key when it is known; the other entries only report.
    const put = () => api.put(`/api/v1/applications/${app.id}`, desiredBody(want, prowlarrUrl, keyOf(want.keyFrom), app));
    drift.push(...changedFields('prowlarr', (name) => `${field}.${name}`, diffs, put));
    if (diffs.length > 0 || want.syncLevel === 'disabled') continue;
    // The key cannot be read back: the app's own test tells whether the manager takes the stored one.
    const tested = await secretTestDrift(api, { app: 'prowlarr', field, testPath: '/api/v1/applications/test', provider: app }, () =>
      api.put(`/api/v1/applications/${app.id}`, desiredBody(want, prowlarrUrl, keyNeeded(want, 'setting its key'), app)),
    );
    if (tested) drift.push(tested);
  }
  for (const extra of live.filter((a) => !applications.some((w) => w.name.toLowerCase() === a.name.toLowerCase())))
    drift.push({
      app: 'prowlarr',
      field: `applications[${extra.name}]`,
      live: 'present',
      declared: 'absent',
      fix: () => api.delete(`/api/v1/applications/${extra.id}`),
    });
  return drift;
}
