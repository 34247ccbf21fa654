/**
 * The media apps' settings files (apps/media/<app>/settings/*.yaml) and the
 * JSON Schemas they follow, read from the files the repository already parsed.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { argoGlobMatch } from '../core/glob.ts';
import { perRepo } from '../repository/per-repo.ts';
import type { DataFile, Repo } from '../repository/repo.ts';
import { cachedValidator, knownToCompile } from '../stores/validation-cache.ts';

export const SETTINGS_GLOB = 'apps/media/*/settings/*.yaml';
/** Every file the scripts push into the apps (`scripts/media/settings.ts`): the settings and Tdarr's flows beside them. */
export const SETTINGS_FILES = 'apps/media/*/settings/*';
/** Every file the media-settings checks read: the settings, Tdarr's flows beside them, and the schemas. */
export const SETTINGS_READS = [SETTINGS_FILES, 'apps/media/facts/schemas/*.schema.json'];
export const SCHEMA_DIR = 'apps/media/facts/schemas';
export const SCHEMA_FOR: Record<string, string> = {
  sonarr: 'manager',
  radarr: 'manager',
  qbittorrent: 'qbittorrent',
  prowlarr: 'prowlarr',
  cleanuparr: 'cleanuparr',
  bazarr: 'bazarr',
  jellyseerr: 'jellyseerr',
  tdarr: 'tdarr',
  plex: 'plex',
};

export type Settings = Record<string, unknown> & { app?: string; instance?: string };

export function settingsFiles(repo: Repo): DataFile[] {
  return [...repo.dataFiles.values()].filter((f) => argoGlobMatch(SETTINGS_GLOB, f.file));
}

/**
 * Settings by app (and instance for the managers). A file that fails its
 * schema is left to media-settings-schema: the row checks see it as present
 * but skip it, so one typo yields one finding.
 */
export const settingsByApp = perRepo((repo: Repo): Map<string, { file: DataFile; s: Settings; valid: boolean }> => {
  const out = new Map<string, { file: DataFile; s: Settings; valid: boolean }>();
  for (const file of settingsFiles(repo)) {
    const s = (file.data ?? {}) as Settings;
    const kind = SCHEMA_FOR[String(s.app)];
    const valid = !file.errors.length && kind !== undefined && validatorFor(repo, kind)?.(s) === true;
    out.set(String(s.instance ?? s.app), { file, s, valid });
  }
  return out;
});

/** Compiled schemas, keyed by their text: compiling is the expensive part, and the same schema recurs across runs. */
const validators = new Map<string, ValidateFunction>();
// One instance for every settings schema. Checking the schemas against the
// draft 2020-12 meta-schema would compile that meta-schema first, which costs
// more than the whole policy layer; a schema Ajv cannot compile still fails.
const AJV_OPTIONS = { allErrors: true, strict: false, validateSchema: false, addUsedSchema: false };
const AJV_MAKEUP = `Ajv2020 ${JSON.stringify(AJV_OPTIONS)}`;
const ajv = new Ajv2020(AJV_OPTIONS);

/** The validator for one settings kind; undefined when its schema file is missing or unparsable. */
export function validatorFor(repo: Repo, kind: string): ValidateFunction | undefined {
  const schema = repo.dataFiles.get(`${SCHEMA_DIR}/${kind}.schema.json`);
  if (!schema?.data || schema.errors.length) return undefined;
  const key = JSON.stringify(schema.data);
  let validate = validators.get(key);
  if (!validate) {
    // A schema that compiled before under this make-up is not compiled again until an outcome is missing (model/stores/validation-cache.ts).
    const compiles = knownToCompile(key, AJV_MAKEUP);
    let compiled: ValidateFunction | undefined;
    if (!compiles.known) {
      try {
        compiled = ajv.compile(schema.data as object);
      } catch {
        return undefined;
      }
      compiles.remember();
    }
    validate = cachedValidator(key, AJV_MAKEUP, () => (compiled ??= ajv.compile(schema.data as object))) as unknown as ValidateFunction;
    validators.set(key, validate);
  }
  return validate;
}
