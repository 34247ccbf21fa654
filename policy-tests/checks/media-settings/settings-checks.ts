/**
 * The media apps' rebuild settings, declared as code in apps/media/<app>/settings/
 * (P2), and the settings rows of docs/invariants.md on top of them (M4, M5, M8-M11, M14, M20-M27).
 */
import { objects } from '../../model/core/dig.ts';
import { parseInstancePath, type Path } from '../../model/core/positions.ts';
import type { DataFile } from '../../model/repository/repo.ts';
import { SCHEMA_DIR, SCHEMA_FOR, SETTINGS_READS, settingsByApp, settingsFiles, validatorFor, type Settings } from '../../model/apps/media-settings.ts';
import { flowProblems, type Flow } from '../../model/apps/tdarr-flow.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';

export const byApp = (ctx: CheckContext) => settingsByApp(ctx.repo);

/**
 * The valid settings of one instance, for the row checks. A missing file is a
 * finding; an invalid one is left to media-settings-schema (undefined, silently).
 */
export function settingsOf(ctx: CheckContext, instance: string, role: string): { file: DataFile; s: Settings } | undefined {
  const found = byApp(ctx).get(instance);
  if (!found) ctx.fail({ file: 'apps/README.md' }, `no settings file for the ${role} (${instance})`);
  return found?.valid ? found : undefined;
}

const MANAGERS: Record<string, { root: string; removeCompleted: boolean; kind: string }> = {
  sonarr: { root: '/data/series', removeCompleted: true, kind: 'TV manager' },
  radarr: { root: '/data/movies', removeCompleted: false, kind: '1080p movie manager' },
  'radarr-4k': { root: '/data/movies-4k', removeCompleted: false, kind: '4K movie manager' },
};
const TORRENT_HOST = 'qbittorrent.media-vpn.svc.cluster.local';
/** The kinds of app that search indexers: a TV manager (Sonarr) and a movie manager (Radarr), each instance its own. */
const MANAGER_APPS: ReadonlySet<string> = new Set(['sonarr', 'radarr']);

export const mediaSettingsChecks: PolicyCheck[] = [
  {
    id: 'media-settings-schema',
    description: 'Every media app settings file matches its JSON Schema, which rejects unknown keys (rebuild settings as code; P2).',
    invariants: ['P2'],
    remediation: `fix the key or value; the schemas are in ${SCHEMA_DIR}`,
    reads: { files: SETTINGS_READS },
    exemptible: false,
    run(ctx) {
      for (const file of settingsFiles(ctx.repo)) {
        if (file.errors.length) {
          ctx.fail({ file: file.file, line: file.errors[0]!.line, col: file.errors[0]!.col }, file.errors[0]!.message);
          continue;
        }
        const s = (file.data ?? {}) as Settings;
        const kind = SCHEMA_FOR[String(s.app)];
        if (!kind) {
          ctx.fail({ data: file, path: ['app'] }, `unknown app "${String(s.app)}"; expected one of ${Object.keys(SCHEMA_FOR).join(', ')}`);
          continue;
        }
        const validate = validatorFor(ctx.repo, kind);
        if (!validate) {
          ctx.fail({ data: file, path: ['app'] }, `no readable schema ${SCHEMA_DIR}/${kind}.schema.json for app "${String(s.app)}"`);
          continue;
        }
        if (!validate(s)) {
          for (const e of validate.errors ?? []) {
            const path = parseInstancePath(e.instancePath);
            const extra = e.keyword === 'additionalProperties' ? (e.params as { additionalProperty: string }).additionalProperty : undefined;
            ctx.fail(
              { data: file, path: extra ? [...path, extra] : path },
              `${e.instancePath || '(root)'}${extra ? `/${extra}` : ''}: ${extra ? 'unknown setting' : e.message}`,
            );
          }
        }
      }
    },
  },
  {
    id: 'media-manager-settings',
    description:
      'Managers: hardlinks on; the torrent client on 8080 without SSL, logged in with the login of its settings instance (loginFrom), one category each; /torrents/ mapped to /data/torrents/ on the byte-equal host; Remove Failed off, Remove Completed only in the TV manager; backups 1 day, 14 days, Backups; distinct roots (M4, M5, M8-M11, M22; B4).',
    invariants: ['M4', 'M5', 'M8', 'M9', 'M10', 'M11', 'M22', 'B4'],
    remediation: 'set the row the finding names in the manager’s settings file',
    reads: { files: SETTINGS_READS },
    exemptible: false,
    run(ctx) {
      const categories = new Map<string, string>();
      for (const [instance, want] of Object.entries(MANAGERS)) {
        const found = settingsOf(ctx, instance, want.kind);
        if (!found) continue;
        const { file, s } = found;
        const fail = (path: Path, message: string) => ctx.fail({ data: file, path: path }, `${instance}: ${message}`);
        if ((s.mediaManagement as { copyUsingHardlinks?: boolean })?.copyUsingHardlinks !== true)
          fail(['mediaManagement'], 'Use hardlinks instead of copy must be on');
        if (JSON.stringify(s.rootFolders) !== JSON.stringify([want.root])) fail(['rootFolders'], `root folders must be exactly ${want.root}`);
        const clients = (s.downloadClients ?? []) as Record<string, unknown>[];
        clients.forEach((c, i) => {
          if (c.host !== TORRENT_HOST || c.port !== 8080 || c.useSsl !== false)
            fail(['downloadClients', i], `the download client must be ${TORRENT_HOST}:8080 without SSL`);
          if (c.removeFailedDownloads !== false) fail(['downloadClients', i, 'removeFailedDownloads'], 'Remove Failed Downloads must be off');
          // media-settings gives the client the login of the instance loginFrom names (MEDIA_<INSTANCE>_USERNAME and _PASSWORD).
          if (byApp(ctx).get(String(c.loginFrom))?.s.app !== 'qbittorrent')
            fail(
              ['downloadClients', i, 'loginFrom'],
              `the download client logs in with the login of ${JSON.stringify(c.loginFrom)}, and no settings file is that qBittorrent instance: media-settings asks for a login no one keeps, and without qBittorrent's every call is 403`,
            );
          if (c.removeCompletedDownloads !== want.removeCompleted)
            fail(
              ['downloadClients', i, 'removeCompletedDownloads'],
              `Remove Completed Downloads must be ${want.removeCompleted ? 'on' : 'off'} in the ${want.kind}`,
            );
          const other = categories.get(String(c.category));
          if (other) fail(['downloadClients', i, 'category'], `category "${String(c.category)}" is also used by ${other}`);
          categories.set(String(c.category), instance);
        });
        if (clients.length !== 1) fail(['downloadClients'], `one download client (the torrent client) is expected, found ${clients.length}`);
        const mappings = (s.remotePathMappings ?? []) as Record<string, unknown>[];
        if (!mappings.some((m) => m.remotePath === '/torrents/' && m.localPath === '/data/torrents/' && m.host === clients[0]?.host))
          fail(['remotePathMappings'], 'remote path mapping /torrents/ -> /data/torrents/ with the download client host, byte for byte, is missing');
        const backup = s.backup as Record<string, unknown> | undefined;
        if (backup?.intervalDays !== 1 || backup?.retentionDays !== 14 || backup?.folder !== 'Backups')
          fail(['backup'], 'backups must run every 1 day, keep 14 days, in folder Backups');
      }
      // Prowlarr's file is required by media-seeding-chain; here only its backup row is read.
      const prowlarr = byApp(ctx).get('prowlarr');
      const backup = prowlarr?.s.backup as Record<string, unknown> | undefined;
      if (prowlarr?.valid && (backup?.intervalDays !== 1 || backup?.retentionDays !== 14 || backup?.folder !== 'Backups'))
        ctx.fail({ data: prowlarr.file, path: ['backup'] }, 'prowlarr: backups must run every 1 day, keep 14 days, in folder Backups');
    },
  },
  {
    id: 'media-seeding-chain',
    description:
      'Seeding: indexer ratio limits 5 or none and never a time limit; no global limits and no queueing in the torrent client; the 4K manager synced as its own app with full sync and movie categories, each app keyed by a manager of its kind, and every TV or movie manager of the settings an app Prowlarr syncs to (its only indexers); the queue cleaner never deletes private torrents and its download cleaner is off (M14, M20, M21, M23).',
    invariants: ['M14', 'M20', 'M21', 'M23'],
    remediation: 'set the seeding rule the finding names',
    reads: { files: SETTINGS_READS },
    exemptible: false,
    run(ctx) {
      const settings = byApp(ctx);
      const prowlarr = settings.get('prowlarr');
      if (prowlarr?.valid) {
        ((prowlarr.s.indexers ?? []) as Record<string, unknown>[]).forEach((ix, i) => {
          if (ix.seedRatio !== 5 && ix.seedRatio !== null)
            ctx.fail({ data: prowlarr.file, path: ['indexers', i, 'seedRatio'] }, `indexer ${String(ix.name)}: ratio limit must be 5 or none`);
          if (ix.seedTime !== null) ctx.fail({ data: prowlarr.file, path: ['indexers', i, 'seedTime'] }, `indexer ${String(ix.name)}: never a seed time limit`);
        });
        const apps = (prowlarr.s.applications ?? []) as Record<string, unknown>[];
        // Each app's key is the manager's own: media-settings reads it from the instance keyFrom names, which must be one of that kind.
        apps.forEach((a, i) => {
          const from = settings.get(String(a.keyFrom));
          if (String(from?.s.app) !== String(a.implementation).toLowerCase())
            ctx.fail(
              { data: prowlarr.file, path: ['applications', i, 'keyFrom'] },
              `application ${String(a.name)} takes its key from ${String(a.keyFrom)}, which is no ${String(a.implementation)} instance of the settings (${
                [...settings.entries()]
                  .filter(([, v]) => String(v.s.app) === String(a.implementation).toLowerCase())
                  .map(([k]) => k)
                  .join(', ') || 'none'
              }): media-settings finds no API key for it and syncs no indexer there`,
            );
        });
        // A TV or movie manager gets its indexers from Prowlarr alone: one no app syncs to has none, and searches nothing.
        for (const [instance, v] of settings)
          if (MANAGER_APPS.has(String(v.s.app)) && !apps.some((a) => a.keyFrom === instance && a.syncLevel !== 'disabled'))
            ctx.fail(
              { data: prowlarr.file, path: ['applications'] },
              `${instance} (a ${String(v.s.app)} instance of the settings) is no application Prowlarr syncs to: it gets no indexer, has none of its own, and every search it runs finds nothing`,
            );
        const i4k = apps.findIndex((a) => String(a.baseUrl).includes('radarr-4k'));
        const a4k = apps[i4k];
        if (!a4k || a4k.syncLevel !== 'fullSync' || !((a4k.syncCategories ?? []) as number[]).every((c) => c >= 2000 && c < 3000)) {
          ctx.fail(
            { data: prowlarr.file, path: i4k === -1 ? ['applications'] : ['applications', i4k] },
            'the 4K movie manager must be synced as its own app, with full sync and movie categories only',
          );
        }
      } else if (!prowlarr) ctx.fail({ file: 'apps/README.md' }, 'no settings file for the indexer manager (prowlarr)');
      const qbt = settings.get('qbittorrent');
      const prefs = (qbt?.s.preferences ?? {}) as Record<string, unknown>;
      for (const key of ['max_ratio_enabled', 'max_seeding_time_enabled', 'max_inactive_seeding_time_enabled', 'queueing_enabled']) {
        if (qbt?.valid && prefs[key] !== false) ctx.fail({ data: qbt.file, path: ['preferences', key] }, `${key} must be false: no global limit, no queueing`);
      }
      const cleaner = settings.get('cleanuparr');
      if (cleaner?.valid) {
        const s = cleaner.s as {
          queueCleaner?: { failedImport?: { deletePrivate?: boolean } };
          malwareBlocker?: { deletePrivate?: boolean };
          downloadCleaner?: { enabled?: boolean };
        };
        if (s.queueCleaner?.failedImport?.deletePrivate !== false)
          ctx.fail({ data: cleaner.file, path: ['queueCleaner', 'failedImport', 'deletePrivate'] }, 'Delete Private must be off');
        if (s.malwareBlocker?.deletePrivate !== false)
          ctx.fail({ data: cleaner.file, path: ['malwareBlocker', 'deletePrivate'] }, 'Delete Private must be off');
        if (s.downloadCleaner?.enabled !== false) ctx.fail({ data: cleaner.file, path: ['downloadCleaner'] }, 'the Download Cleaner must be off');
      }
    },
  },
  {
    id: 'media-queue-cleaner',
    description:
      'Queue cleaner jobs: every 5 min; 3 strikes; Ignore Private off; skip if not in client; Force Import 3 tries; pattern mode Exclude; no stall or slow rules; Malware Blocker permissive for each manager the cleaner lists, by its name; Seeker search on, proactive off; managers on 8989 and 7878 (M24-M27).',
    invariants: ['M24', 'M25', 'M26', 'M27'],
    remediation: 'set the Cleanuparr job setting the finding names',
    reads: { files: SETTINGS_READS },
    exemptible: false,
    run(ctx) {
      const found = settingsOf(ctx, 'cleanuparr', 'queue cleaner');
      if (!found) return;
      const { file, s } = found;
      const q = (s.queueCleaner ?? {}) as { intervalMinutes?: number; failedImport?: Record<string, unknown>; stalledRules?: unknown[]; slowRules?: unknown[] };
      const f = q.failedImport ?? {};
      const expect = (ok: boolean, path: Path, message: string) => ok || ctx.fail({ data: file, path: path }, message);
      expect(q.intervalMinutes === 5, ['queueCleaner', 'intervalMinutes'], 'Queue Cleaner runs every 5 min');
      expect(f.maxStrikes === 3, ['queueCleaner', 'failedImport', 'maxStrikes'], 'failed imports strike out at 3');
      expect(f.ignorePrivate === false, ['queueCleaner', 'failedImport', 'ignorePrivate'], 'Ignore Private is off');
      expect(f.skipIfNotFoundInClient === true, ['queueCleaner', 'failedImport', 'skipIfNotFoundInClient'], 'Skip if not found in client is on');
      expect(
        JSON.stringify(f.forceImport) === JSON.stringify({ enabled: true, tries: 3 }),
        ['queueCleaner', 'failedImport', 'forceImport'],
        'Force Import is on with 3 tries',
      );
      expect(f.patternMode === 'exclude', ['queueCleaner', 'failedImport', 'patternMode'], 'pattern mode is Exclude');
      expect(!q.stalledRules?.length && !q.slowRules?.length, ['queueCleaner'], 'no stall or slow rules');
      const m = (s.malwareBlocker ?? {}) as Record<string, unknown>;
      expect(
        m.enabled === true && m.intervalMinutes === 5 && m.blocklist === 'permissive' && m.ignorePrivate === false,
        ['malwareBlocker'],
        'Malware Blocker runs every 5 min, permissive, Ignore Private off',
      );
      // The blocker runs for each manager the cleaner knows, by its name there: a name it does not know blocks nothing.
      const names = (objects(s.managers) as { name?: unknown }[]).map((mgr) => String(mgr.name));
      const blocked = Array.isArray(m.managers) ? (m.managers as unknown[]) : [];
      blocked.forEach((name, i) =>
        expect(names.includes(String(name)), ['malwareBlocker', 'managers', i], `Malware Blocker names manager ${String(name)}, which managers does not list`),
      );
      for (const name of names.filter((n) => !blocked.map(String).includes(n)))
        ctx.fail({ data: file, path: ['malwareBlocker', 'managers'] }, `Malware Blocker leaves manager ${name} out`);
      const seeker = (s.seeker ?? {}) as Record<string, unknown>;
      expect(seeker.search === true && seeker.proactiveSearch === false, ['seeker'], 'Seeker: search on, proactive search off');
      (objects(s.managers) as { kind?: string; url?: string }[]).forEach((mgr, i) => {
        // A URL that does not parse addresses no port: Cleanuparr cannot reach the manager at all.
        const port = URL.canParse(String(mgr.url)) ? new URL(String(mgr.url)).port : undefined;
        expect(
          port === (mgr.kind === 'sonarr' ? '8989' : '7878'),
          ['managers', i, 'url'],
          `${mgr.kind} is addressed on port ${mgr.kind === 'sonarr' ? 8989 : 7878}`,
        );
      });
    },
  },
];

/** Reports every path of a Tdarr flow that reaches replaceOriginalFile without passing each gate. */
export function checkFlow(ctx: CheckContext, file: string): void {
  const data = ctx.repo.dataFiles.get(file);
  const flow = data?.data as Partial<Flow> | undefined;
  if (!data || !flow?.flowPlugins || !flow.flowEdges) {
    ctx.fail({ file: 'apps/media/tdarr/settings/tdarr.yaml' }, `flow ${file} is missing or has no flowPlugins/flowEdges`);
    return;
  }
  const { paths, problems } = flowProblems(flow as Flow);
  const { line, col } = data.positions.at(['flowEdges'], 'key');
  if (paths === 0) ctx.fail({ file: file, line, col }, 'the flow never reaches replaceOriginalFile from its input');
  for (const message of problems) ctx.fail({ file: file, line, col }, message);
}
