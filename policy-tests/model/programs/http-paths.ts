/**
 * The HTTP paths an image's program answers, as its facts say them (`servedPaths`, `openPaths`, `pollPaths`,
 * `readyPaths`), and the one server they are of where the program serves HTTP on more than one port (`pathsServer`):
 * gluetun answers any path on its health server and only its public routes on its control server. A kubelet's httpGet
 * probe asks one path of one port, never logs in, and fails on any answer outside 200-399.
 */
import { splitHostPort } from '../go/net.ts';
import { isPort, portValue } from './listens.ts';

export interface HttpPaths {
  /** The only HTTP paths it answers without a login: a kubelet's httpGet probe, which never logs in, must ask one of them. */
  openPaths?: string[];
  /** The only HTTP paths it answers at all, on any of its ports (any other is a 404): an httpGet probe must ask one of them. */
  servedPaths?: string[];
  /** HTTP paths whose every request polls the device or service the image watches (an exporter's scrape): no probe's path. */
  pollPaths?: string[];
  /** HTTP paths that answer only once the app is ready, after its start-up work (a WAL replayed): no liveness probe's path. */
  readyPaths?: string[];
  /** The server the paths above are of, where the program serves HTTP on more than one port: the others are not held to them. */
  pathsServer?: PathsServer;
}

export interface PathsServer {
  /** The variable its listening address is read from, `[host]:port` as Go's net.SplitHostPort reads it. */
  address: string;
  /** Its port where the variable is unset. */
  default: number;
  /** A file that, where it exists, says other paths than the facts (gluetun's authentication roles): the variable naming it, and its path where unset. */
  replacedBy?: { variable: string; default: string };
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A non-empty list of absolute paths. */
export const isPathList = (paths: unknown): boolean =>
  Array.isArray(paths) && paths.length > 0 && paths.every((p) => typeof p === 'string' && p.startsWith('/'));
const pathsField = (says: string) => ({ valid: isPathList, says });

function isPathsServer(v: unknown): boolean {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const { address, default: fallback, replacedBy } = v as Record<string, unknown>;
  const file = (replacedBy ?? {}) as Record<string, unknown>;
  return (
    typeof address === 'string' &&
    NAME.test(address) &&
    isPort(fallback) &&
    (replacedBy === undefined ||
      (typeof file.variable === 'string' && NAME.test(file.variable) && typeof file.default === 'string' && file.default.startsWith('/')))
  );
}

/** The path facts' fields, each with what a value must be and what the facts say when it is not. */
export const HTTP_PATH_FIELDS = {
  openPaths: pathsField('openPaths lists the absolute paths the image answers without a login'),
  servedPaths: pathsField('servedPaths lists the absolute paths the image answers at all'),
  pollPaths: pathsField('pollPaths lists the absolute paths whose every request polls what the image watches'),
  readyPaths: pathsField('readyPaths lists the absolute paths that answer only once the app is ready'),
  pathsServer: {
    keys: ['address', 'default', 'replacedBy'],
    valid: isPathsServer,
    says: 'pathsServer is {address, default, replacedBy?}: the variable the server reads its listening address ([host]:port) from, its port where unset, and {variable, default} naming the file that, where it exists, says other paths (its absolute path where the variable is unset)',
  },
};

/** The port a listening address gives (`[host]:port`, a number 1-65535), else undefined: the program refuses it. */
export function listeningPort(address: string): number | undefined {
  const split = splitHostPort(address);
  return 'error' in split || !/^\d+$/.test(split.port) ? undefined : portValue(split.port);
}

/** Whether a volume mounted at `mountPath` holds `file`: mounted at the file itself, or at a folder above it. */
export const mountHolds = (mountPath: string, file: string): boolean => {
  const at = mountPath.replace(/(.)\/+$/, '$1');
  return file === at || file.startsWith(at === '/' ? '/' : `${at}/`);
};
