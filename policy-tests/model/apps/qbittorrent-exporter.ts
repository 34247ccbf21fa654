/**
 * What esanchezm/prometheus-qbittorrent-exporter 1.3.0 reads of its container (qbittorrent_exporter/exporter.py
 * `main`): each setting from `FILE__<KEY>`'s file or the env var `<KEY>`; `QBITTORRENT_HOST` and `QBITTORRENT_PORT`
 * required (it exits 1 without either), `EXPORTER_PORT` read with Python's `int()` (default 8000; other text raises,
 * and it exits), `EXPORTER_LOG_LEVEL` given to `logging.setLevel` (a level's name in capitals, or it raises).
 */
import { list, objects } from '../core/dig.ts';

export const QBITTORRENT_EXPORTER_IMAGE = /(^|\/)esanchezm\/prometheus-qbittorrent-exporter(:|@|$)/;

/** Python's logging level names (`_nameToLevel`): setLevel takes one of them, as written, or an int. */
const PYTHON_LEVELS = ['CRITICAL', 'FATAL', 'ERROR', 'WARN', 'WARNING', 'INFO', 'DEBUG', 'NOTSET'];

export interface EnvSetting {
  /** The text, or `<from>` where it comes from a Secret, the downward API or a file. */
  value: string;
  index: number;
}

/** Each env var the exporter reads, by its key (`FILE__<KEY>` counted as set, its text unknown). */
export function qbittorrentExporterEnv(container: Readonly<Record<string, unknown>>): Map<string, EnvSetting> {
  const env = new Map<string, EnvSetting>();
  objects(container.env).forEach((e, index) => {
    if (typeof e.name !== 'string') return;
    const file = /^FILE__(.+)$/.exec(e.name)?.[1];
    if (file) env.set(file, { value: '<from>', index });
    else if (!(env.get(e.name)?.value === '<from>')) env.set(e.name, { value: typeof e.value === 'string' ? e.value : e.valueFrom ? '<from>' : '', index });
  });
  return env;
}

/** What `main` exits on, by the key it is about. */
export function qbittorrentExporterProblems(
  env: ReadonlyMap<string, EnvSetting>,
  container: Readonly<Record<string, unknown>>,
): { key: string; message: string }[] {
  if (list(container.command).length > 0 || list(container.args).length > 0) return [];
  const out: { key: string; message: string }[] = [];
  const value = (key: string) => env.get(key)?.value;
  if (!value('QBITTORRENT_HOST')) out.push({ key: 'QBITTORRENT_HOST', message: 'No host specified, please set QBITTORRENT_HOST environment variable' });
  if (!value('QBITTORRENT_PORT')) out.push({ key: 'QBITTORRENT_PORT', message: 'No port specified, please set QBITTORRENT_PORT environment variable' });
  const port = value('EXPORTER_PORT');
  if (port !== undefined && port !== '<from>' && !/^\s*[-+]?\d+(_\d+)*\s*$/.test(port))
    out.push({ key: 'EXPORTER_PORT', message: `invalid literal for int() with base 10: ${JSON.stringify(port)}` });
  const level = value('EXPORTER_LOG_LEVEL');
  if (level !== undefined && level !== '<from>' && !PYTHON_LEVELS.includes(level))
    out.push({ key: 'EXPORTER_LOG_LEVEL', message: `Unknown level: ${JSON.stringify(level)}` });
  return out;
}
