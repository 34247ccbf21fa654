/**
 * The exporters that run beside a media app in its pod and read it on localhost, each read as its program reads its
 * container (exportarr.ts, qbittorrent-exporter.ts), in one shape: the app it reads, what it exits on, the port it
 * listens on and the address of the app, each with where in the container it is set.
 */
import { EXPORTARR_IMAGE, exportarrPort, exportarrRequestProblem, exportarrSettingProblems, exportarrSettings, exportarrTarget } from './exportarr.ts';
import { QBITTORRENT_EXPORTER_IMAGE, qbittorrentExporterEnv, qbittorrentExporterProblems } from './qbittorrent-exporter.ts';

/** Where a setting is written: an env var (its index) or an argument (its index); none where it is the default. */
export type SettingPlace = { env: number } | { arg: number } | undefined;

export interface ExporterReading {
  program: string;
  /** The app whose API it reads, or why it reads none. */
  app: { name: string } | { problem: string };
  problems: { place: SettingPlace; message: string }[];
  listens: { port: number; place: SettingPlace; byDefault: boolean };
  /** The app's address, where its settings name it in their text. */
  target?: { host: string; port: number; place: SettingPlace };
}

/**
 * How a sidecar exporter reads its container; `own-command` where it runs a command of its own, undefined where it is
 * none of these. `expand`: the kubelet's `$(NAME)` expansion of a word of its args (exportarrSettings).
 */
export function exporterReading(
  container: Readonly<Record<string, unknown>>,
  image: string,
  expand?: (word: string) => string | null,
): ExporterReading | 'own-command' | undefined {
  if (EXPORTARR_IMAGE.test(image)) {
    const s = exportarrSettings(container, expand);
    if (!s) return 'own-command';
    const place = (key: string): SettingPlace => {
      const set = s.settings.get(key);
      return set && (set.from === 'env' ? { env: set.index } : { arg: set.index });
    };
    const target = exportarrTarget(s);
    const request = exportarrRequestProblem(s);
    return {
      program: 'exportarr',
      app: s.app,
      problems: [
        ...exportarrSettingProblems(s).map((p) => ({ place: place(p.key), message: `${p.message}: exportarr exits 1 at start` })),
        ...(request ? [{ place: place(request.key), message: request.message }] : []),
      ],
      listens: { port: exportarrPort(s), place: place('port'), byDefault: !s.settings.has('port') },
      ...(target ? { target: { ...target, place: place('url') } } : {}),
    };
  }
  if (QBITTORRENT_EXPORTER_IMAGE.test(image)) {
    const env = qbittorrentExporterEnv(container);
    const place = (key: string): SettingPlace => {
      const set = env.get(key);
      return set && { env: set.index };
    };
    const host = env.get('QBITTORRENT_HOST')?.value;
    const port = Number(env.get('QBITTORRENT_PORT')?.value);
    const listening = env.get('EXPORTER_PORT')?.value;
    return {
      program: 'the qBittorrent exporter',
      app: { name: 'qbittorrent' },
      problems: qbittorrentExporterProblems(env, container).map((p) => ({ place: place(p.key), message: `${p.message}: the exporter exits at start` })),
      listens: { port: Number(listening ?? '8000'), place: place('EXPORTER_PORT'), byDefault: listening === undefined },
      ...(host && host !== '<from>' && Number.isInteger(port) ? { target: { host, port, place: place('QBITTORRENT_PORT') } } : {}),
    };
  }
  return undefined;
}
