/**
 * What exportarr v2.2.0 makes of the container it runs in (onedr0p/exportarr: internal/commands, internal/config,
 * internal/arr/config), read from the container's args and env as it reads them:
 *   - the image's entrypoint is `/exportarr`; its first argument names the app's API it reads, a cobra subcommand
 *     (radarr, sonarr, lidarr, readarr, bazarr, prowlarr, sabnzbd, or an alias), looked up in the order they were
 *     added; none runs the root command, which has no action: it prints its help and exits, and the pod restarts;
 *   - koanf loads every env var, lower-cased, `__` to `.`, `_` to `-` (`APIKEY` and `APIKEY_FILE` as `api-key` and
 *     `api-key-file`), then the flags given: `port` (default 8081), `interface` (default 0.0.0.0, an IP), `url`,
 *     `api-key`, `api-key-file`, `config` (the app's config.xml, from which it reads the URL and key), `log-level` (a
 *     zap level) and `log-format` (console or json); the root's and the app's checks refuse the rest, and it exits 1.
 */
import { list, objects } from '../core/dig.ts';
import { isIP } from 'node:net';
import { parseURL } from '../go/url.ts';

export const EXPORTARR_IMAGE = /(^|\/)onedr0p\/exportarr(:|@|$)/;

/** The subcommands in the order exportarr adds them (a shared alias finds the first), with the app each reads. */
const SUBCOMMANDS: readonly { name: string; aliases: readonly string[] }[] = [
  { name: 'radarr', aliases: ['r'] },
  { name: 'sonarr', aliases: ['s'] },
  { name: 'lidarr', aliases: [] },
  { name: 'readarr', aliases: ['b'] },
  { name: 'bazarr', aliases: ['b'] },
  { name: 'prowlarr', aliases: ['p'] },
  { name: 'sabnzbd', aliases: ['sab'] },
];
const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'dpanic', 'panic', 'fatal'];
/** pflag's shorthands of the root's flags. */
const SHORTHANDS: Readonly<Record<string, string>> = { l: 'log-level', u: 'url', a: 'api-key', i: 'interface', p: 'port' };

export interface ExportarrSettings {
  /** The app whose API it reads (its subcommand's name), or why there is none. */
  app: { name: string } | { problem: string };
  /** Every setting, env then flags over it, by koanf's key. */
  settings: ReadonlyMap<string, { value: string; from: 'env' | 'flag'; index: number }>;
}

const koanfKey = (env: string): string => {
  const key = env.toLowerCase().replaceAll('__', '.').replaceAll('_', '-');
  return key === 'apikey' ? 'api-key' : key === 'apikey-file' ? 'api-key-file' : key;
};

/**
 * The settings of an exportarr container, or undefined where it does not run exportarr's own entrypoint (a `command`).
 * `expand` is the kubelet's `$(NAME)` expansion of a word of its args (null where it reads a value the gate does not
 * read: the setting is then set, its text unknown); without it, each word as written.
 */
export function exportarrSettings(
  container: Readonly<Record<string, unknown>>,
  expand: (word: string) => string | null = (word) => word,
): ExportarrSettings | undefined {
  if (list(container.command).length > 0) return undefined;
  const settings = new Map<string, { value: string; from: 'env' | 'flag'; index: number }>();
  objects(container.env).forEach((e, index) => {
    // A value from a Secret or the downward API: set, its text unknown here.
    if (typeof e.name === 'string')
      settings.set(koanfKey(e.name), { value: typeof e.value === 'string' ? e.value : e.valueFrom ? '<from>' : '', from: 'env', index });
  });
  const args = list(container.args).map((a) => expand(typeof a === 'string' ? a : String(a)));
  let subcommand: string | undefined;
  for (let i = 0; i < args.length; i++) {
    // A word whose text is not known is read by what it is written as: a flag's name stands, its value is unknown.
    const arg = args[i] ?? String(list(container.args)[i]);
    const flag = /^--?([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!flag) {
      subcommand ??= arg;
      continue;
    }
    const name = arg.startsWith('--') ? flag[1]! : (SHORTHANDS[flag[1]!] ?? flag[1]!);
    const next = flag[2] !== undefined || name === 'disable-ssl-verify' ? undefined : ++i;
    const value = args[i] === null ? '<from>' : (flag[2] ?? (next === undefined ? 'true' : (args[next] ?? undefined)));
    if (value !== undefined) settings.set(name, { value, from: 'flag', index: i });
  }
  const found = subcommand === undefined ? undefined : SUBCOMMANDS.find((c) => c.name === subcommand || c.aliases.includes(subcommand));
  const app =
    subcommand === undefined
      ? { problem: 'no subcommand: exportarr runs its root command, which prints its help and exits, so the container restarts for good' }
      : found
        ? { name: found.name }
        : { problem: `unknown command "${subcommand}" for "exportarr": it exits 1 (its commands: ${SUBCOMMANDS.map((c) => c.name).join(', ')})` };
  return { app, settings };
}

/** What the root's and the app's checks refuse of the settings (the values known here), each with the key it is about. */
export function exportarrSettingProblems(s: ExportarrSettings): { key: string; message: string }[] {
  const out: { key: string; message: string }[] = [];
  const value = (key: string) => s.settings.get(key)?.value;
  const port = value('port') ?? '8081';
  if (port !== '<from>' && !/^[0-9]+$/.test(port)) out.push({ key: 'port', message: `port ${JSON.stringify(port)} is no integer` });
  const iface = value('interface') ?? '0.0.0.0';
  if (iface !== '<from>' && isIP(iface) === 0) out.push({ key: 'interface', message: `interface ${JSON.stringify(iface)} is no IP address` });
  const level = value('log-level');
  if (level !== undefined && level !== '<from>' && !LOG_LEVELS.includes(level))
    out.push({ key: 'log-level', message: `log-level must be one of: ${LOG_LEVELS.join(', ')}` });
  const format = value('log-format');
  if (format !== undefined && format !== '<from>' && !['console', 'json'].includes(format))
    out.push({ key: 'log-format', message: 'log-format must be one of: console, json' });
  // The app's config.xml gives the URL and the key where the settings do not.
  if (value('config') === undefined) {
    const url = value('url');
    if (url === undefined || url === '') out.push({ key: 'url', message: 'url is required' });
    // Not quoted: a URL may carry a login (http://user:password@host).
    else if (url !== '<from>' && !/^[a-z][a-z0-9+.-]*:\/\/[^/\s]+/i.test(url)) out.push({ key: 'url', message: 'url is no URL (a scheme, :// and a host)' });
    if (value('api-key') === undefined && value('api-key-file') === undefined) out.push({ key: 'api-key', message: 'api-key is required' });
  }
  return out;
}

/**
 * What fails every request exportarr makes of the app, though it starts: its client is Go's http.Client over
 * http.DefaultTransport (internal/client), which speaks http and https alone (url.Parse lowers the scheme), so an
 * `htpt://` URL, which its url check takes, gets "unsupported protocol scheme" on each scrape.
 */
export function exportarrRequestProblem(s: ExportarrSettings): { key: string; message: string } | undefined {
  const url = s.settings.get('url')?.value;
  if (s.settings.has('config') || url === undefined || url === '<from>') return undefined;
  // The client reads the URL with Go's url.Parse (NewClient); one it cannot parse is the url check's to refuse.
  let scheme: string;
  try {
    scheme = parseURL(url).scheme;
  } catch {
    return undefined;
  }
  if (scheme === '' || scheme === 'http' || scheme === 'https') return undefined;
  return {
    key: 'url',
    message: `url ${JSON.stringify(url)} names scheme "${scheme}", which exportarr's HTTP client does not speak (Go's net/http: http and https alone): every request to the app fails with "unsupported protocol scheme", and every scrape with it`,
  };
}

/** The port exportarr listens on. */
export const exportarrPort = (s: ExportarrSettings): number => Number(s.settings.get('port')?.value ?? '8081');

/** The host and port of the app URL, where it names them in the text. */
export function exportarrTarget(s: ExportarrSettings): { host: string; port: number } | undefined {
  const url = s.settings.get('url')?.value;
  if (!url || url === '<from>') return undefined;
  try {
    const parsed = new URL(url);
    const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : parsed.protocol === 'http:' ? 80 : NaN;
    return Number.isNaN(port) ? undefined : { host: parsed.hostname, port };
  } catch {
    return undefined;
  }
}
