/**
 * Rebuild settings of the media apps, declared in apps/media/<app>/settings/:
 *   npm run media-settings -- diff  [instance...]          exit 1 on drift or when an app gives no answer
 *   npm run media-settings -- apply [instance...] [--yes]  dry-run unless --yes; idempotent
 * Endpoints and credentials come from the environment, per instance:
 *   MEDIA_<INSTANCE>_URL and MEDIA_<INSTANCE>_API_KEY (Sonarr, Radarr, Prowlarr),
 *   MEDIA_QBITTORRENT_URL, MEDIA_QBITTORRENT_USERNAME, MEDIA_QBITTORRENT_PASSWORD.
 * Prowlarr's app sync sends each manager its key: the manager's MEDIA_<INSTANCE>_API_KEY; a
 * manager's download client logs in with the torrent client's MEDIA_QBITTORRENT_USERNAME and _PASSWORD.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describeError, runCommand, UsageError, type CommandIo } from '../lib/command.ts';
import { HttpClient, Unreachable } from './http.ts';
import { prowlarrDrift, type ProwlarrSettings } from './prowlarr.ts';
import { QbtClient, qbtDrift, type QbtSettings } from './qbittorrent.ts';
import type { Drift } from './drift.ts';
import { managerDrift, type ManagerSettings } from './servarr.ts';

type AnySettings = (ManagerSettings | QbtSettings | ProwlarrSettings | { app: string; instance?: string }) & { app: string };

/** The settings files the script can apply (the others are applied by hand and checked by the gate). */
export function loadSettings(root: string): Map<string, AnySettings> {
  const out = new Map<string, AnySettings>();
  const media = join(root, 'apps/media');
  for (const app of readdirSync(media)) {
    let files: string[] = [];
    try {
      files = readdirSync(join(media, app, 'settings')).filter((f) => f.endsWith('.yaml'));
    } catch {
      continue;
    }
    for (const f of files) {
      const s = parse(readFileSync(join(media, app, 'settings', f), 'utf8')) as AnySettings;
      if (['sonarr', 'radarr', 'qbittorrent', 'prowlarr'].includes(s.app)) out.set(String((s as { instance?: string }).instance ?? s.app), s);
    }
  }
  return out;
}

const envKey = (instance: string, what: string) => `MEDIA_${instance.toUpperCase().replace(/-/g, '_')}_${what}`;

export async function driftOf(instance: string, s: AnySettings, env: NodeJS.ProcessEnv, fetchImpl: typeof fetch = fetch): Promise<Drift[]> {
  const url = env[envKey(instance, 'URL')];
  if (!url) throw new Unreachable(`${instance}: ${envKey(instance, 'URL')} is not set`);
  if (s.app === 'qbittorrent')
    return qbtDrift(new QbtClient(url, env[envKey(instance, 'USERNAME')] ?? '', env[envKey(instance, 'PASSWORD')] ?? '', fetchImpl), s as QbtSettings);
  const api = new HttpClient(url, { 'X-Api-Key': env[envKey(instance, 'API_KEY')] ?? '' }, fetchImpl);
  const keyOf = (other: string) => env[envKey(other, 'API_KEY')] || undefined;
  const loginOf = (other: string) => ({ username: env[envKey(other, 'USERNAME')] || undefined, password: env[envKey(other, 'PASSWORD')] || undefined });
  return s.app === 'prowlarr' ? prowlarrDrift(api, s as ProwlarrSettings, keyOf) : managerDrift(api, s as ManagerSettings, loginOf);
}

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

const USAGE = 'media-settings diff|apply [instance...] [--yes]';

/** Where a run reads and writes: the environment (each app's URL and key), the checkout, its output lines, the HTTP client and the command's streams. */
export interface SettingsRun {
  env: NodeJS.ProcessEnv;
  root: string;
  out: (line: string) => void;
  fetchImpl?: typeof fetch;
  io?: CommandIo;
}

export async function run(args: string[], ctx: SettingsRun): Promise<number> {
  return runCommand(
    {
      name: 'media-settings',
      usage: USAGE,
      help: `diff: compares each app's live settings with apps/media/<app>/settings/ and
exits 1 on drift. apply: shows the changes (a dry run) and, with --yes,
applies them and checks again. Instances: every app the script manages
(sonarr, radarr, radarr-4k, prowlarr, qbittorrent) unless named.
Environment per instance: MEDIA_<INSTANCE>_URL and MEDIA_<INSTANCE>_API_KEY,
or for qBittorrent MEDIA_QBITTORRENT_URL, _USERNAME and _PASSWORD. Adding
or re-keying an app in Prowlarr's app sync takes that manager's
MEDIA_<INSTANCE>_API_KEY (the store's key, which the manager reads too),
and a manager's download client logs in to qBittorrent with
MEDIA_QBITTORRENT_USERNAME and _PASSWORD.
Exit 0 in sync (or applied), 1 on drift, when an app gives no answer or
refuses a change (the others are still applied), 2 for a wrong argument.`,
      options: { yes: { type: 'boolean', default: false } },
      positionals: { min: 1, max: Infinity },
      run: ({ values, positionals: [command, ...wanted] }) => reconcile({ command: command!, wanted, yes: values.yes === true }, ctx),
    },
    args,
    ctx.io,
  );
}

/** Each change in turn; the cause of the first the app refuses (or that cannot be made), if any. */
async function applyAll(drift: readonly Drift[]): Promise<string | undefined> {
  for (const d of drift) {
    try {
      await d.fix();
    } catch (err) {
      return `${d.field}: ${describeError(err)}`;
    }
  }
  return undefined;
}

async function reconcile({ command, wanted, yes }: { command: string; wanted: string[]; yes: boolean }, ctx: SettingsRun): Promise<number> {
  const { env, root, out, fetchImpl = fetch } = ctx;
  if (command !== 'diff' && command !== 'apply') throw new UsageError(`unknown command "${command}"; diff or apply`);
  if (yes && command === 'diff') throw new UsageError('--yes applies changes; it goes with apply, not diff');
  const settings = loadSettings(root);
  const unknown = wanted.filter((i) => !settings.has(i));
  if (unknown.length)
    throw new UsageError(`no settings file this script can apply for ${unknown.join(', ')}; known: ${[...settings.keys()].sort().join(', ')}`);
  const instances = wanted.length ? wanted : [...settings.keys()].sort();
  let drifted = false;
  let failed = false;
  for (const instance of instances) {
    const s = settings.get(instance)!;
    let drift: Drift[];
    try {
      drift = await driftOf(instance, s, env, fetchImpl);
    } catch (err) {
      out(`${instance}: UNREACHABLE ${describeError(err)}`);
      failed = true;
      continue;
    }
    if (drift.length === 0) out(`${instance}: in sync`);
    for (const d of drift) out(`${instance}: ${d.field}: live ${show(d.live)}, declared ${show(d.declared)}`);
    if (drift.length && command === 'apply') {
      if (!yes) out(`${instance}: dry run, ${drift.length} change(s) not applied (add --yes)`);
      else {
        // A change the app refuses stops this app, not the rest: the others are applied and the run exits 1.
        const refused = await applyAll(drift);
        if (refused) {
          out(`${instance}: REFUSED ${refused}`);
          failed = true;
          continue;
        }
        const after = await driftOf(instance, s, env, fetchImpl);
        out(after.length ? `${instance}: ${after.length} field(s) still differ after apply` : `${instance}: applied ${drift.length} change(s)`);
        drifted ||= after.length > 0;
        continue;
      }
    }
    drifted ||= drift.length > 0;
  }
  if (failed) return 1;
  return drifted && (command === 'diff' || !yes) ? 1 : 0;
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) {
  const root = new URL('../..', import.meta.url).pathname;
  process.exitCode = await run(process.argv.slice(2), { env: process.env, root, out: (line) => process.stdout.write(`${line}\n`) });
}
