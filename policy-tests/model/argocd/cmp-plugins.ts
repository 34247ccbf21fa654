/**
 * Config management plugins the repository's Argo CD install runs, and the sources their discovery claims. A source
 * that names no tool is offered to every plugin sidecar of the repo-server before kustomize, Helm or a directory
 * (util/app/discovery `Discover`: `DetectConfigManagementPlugin` first); a plugin whose `plugin.yaml` defines
 * `discover` claims it when `fileName` matches in its folder (Go's filepath.Glob), `find.glob` does (mattn/go-zglob,
 * `**` across folders), or `find.command` prints anything (cmpserver/plugin `matchRepository`, v3.5.1). What the
 * plugin then generates is its command's, which the gate cannot run: such a source is refused, never rendered as
 * what its folder would otherwise be.
 */
import { parse } from 'yaml';
import { dig, isMap } from '../core/dig.ts';
import { doublestarMatch, goFilepathMatch } from '../core/glob.ts';
import type { Repo } from '../repository/repo.ts';
import { checkoutTree } from '../repository/repo.ts';
import { perRepo } from '../repository/per-repo.ts';
import { explicitTool } from './repo-server.ts';
import { isThisRepo, normalizeSourcePath, type AppSource } from './argocd.ts';

/** Where a sidecar reads its plugin.yaml (common.PluginConfigFileName under the cmp-server's config folder). */
const CONFIG_DIR = '/home/argocd/cmp-server/config';
const CONFIG_FILE = `${CONFIG_DIR}/plugin.yaml`;

export interface CmpPlugin {
  /** The sidecar's container name. */
  container: string;
  /** Its `spec.discover`, as its plugin.yaml defines it; undefined where the repository does not hold that file. */
  discover?: { fileName?: string; glob?: string; command: boolean };
  /** Why its plugin.yaml cannot be read here, where it cannot. */
  unknown?: string;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The repo-server's plugin sidecars (a container that runs argocd-cmp-server), each with its discovery. */
export const cmpPlugins = perRepo((repo: Repo): CmpPlugin[] => {
  const server = repo.resources.find((r) => r.kind === 'Deployment' && r.name === 'argocd-repo-server');
  const pod = dig(server?.object, ['spec', 'template', 'spec']);
  const containers = (isMap(pod) && Array.isArray(pod.containers) ? pod.containers : []).filter(isMap);
  const volumes = (isMap(pod) && Array.isArray(pod.volumes) ? pod.volumes : []).filter(isMap);
  return containers
    .filter((c) =>
      [...(Array.isArray(c.command) ? c.command : []), ...(Array.isArray(c.args) ? c.args : [])].some((a) => String(a).includes('argocd-cmp-server')),
    )
    .map((c) => ({ container: text(c.name) ?? '', ...pluginConfig(repo, c, volumes, server?.namespace) }));
});

/** The plugin.yaml a sidecar mounts from a ConfigMap of the repository, read for its `spec.discover`. */
function pluginConfig(
  repo: Repo,
  container: Record<string, unknown>,
  volumes: Record<string, unknown>[],
  namespace: string | undefined,
): Omit<CmpPlugin, 'container'> {
  const mounts = (Array.isArray(container.volumeMounts) ? container.volumeMounts : []).filter(isMap);
  const mount = mounts.find((m) => m.mountPath === CONFIG_FILE) ?? mounts.find((m) => String(m.mountPath).replace(/\/+$/, '') === CONFIG_DIR);
  if (!mount) return { unknown: `no volume mounted at ${CONFIG_FILE}: the image's own plugin.yaml, which the repository does not hold` };
  const volume = volumes.find((v) => v.name === mount.name);
  const configMap = isMap(volume?.configMap) ? volume.configMap : undefined;
  if (!configMap) return { unknown: `its plugin.yaml comes from volume ${String(mount.name)}, which is no ConfigMap of the repository` };
  // A file mount (subPath) names the key; a folder mount holds plugin.yaml, or the key an item puts there.
  const items = (Array.isArray(configMap.items) ? configMap.items : []).filter(isMap);
  const key = text(mount.subPath) ?? text(items.find((i) => i.path === 'plugin.yaml')?.key) ?? 'plugin.yaml';
  const cm = repo.resources.find((r) => r.kind === 'ConfigMap' && r.name === configMap.name && (r.namespace ?? namespace) === namespace);
  const source = (cm?.object.data as Record<string, unknown> | undefined)?.[key];
  if (typeof source !== 'string') return { unknown: `ConfigMap ${String(configMap.name)} holds no ${key}` };
  let spec: unknown;
  try {
    spec = dig(parse(source) as unknown, ['spec']);
  } catch {
    return { unknown: `ConfigMap ${String(configMap.name)}'s ${key} is no YAML` };
  }
  const discover = dig(spec, ['discover']);
  const [fileName, glob, command] = [text(dig(discover, ['fileName'])), text(dig(discover, ['find', 'glob'])), dig(discover, ['find', 'command'])];
  return {
    discover: { ...(fileName ? { fileName } : {}), ...(glob ? { glob } : {}), command: Array.isArray(command) && command.length > 0 },
  };
}

/**
 * The plugins that may claim `source` by discovery, with how: none for a source that names its tool (or two), one of
 * another repository, or where the install runs no plugin. `fileName` first, then `find.glob`, then `find.command`,
 * as matchRepository asks them; a plugin.yaml the repository does not hold might claim anything.
 */
export function claimingPlugins(repo: Repo, source: AppSource): { container: string; how: string }[] {
  if (source.path === undefined || source.chart !== undefined || !isThisRepo(repo, source)) return [];
  const explicit = explicitTool(source);
  if (explicit.tool !== undefined || explicit.error !== undefined) return [];
  const plugins = cmpPlugins(repo);
  if (plugins.length === 0) return [];
  const base = normalizeSourcePath(source.path);
  const below = checkoutTree(repo).flatMap((f) => (base === '' ? [f] : f.startsWith(`${base}/`) ? [f.slice(base.length + 1)] : []));
  // filepath.Glob matches folders as well as files: every folder on the way to a file is a path it may match.
  const entries = [...new Set(below.flatMap((f) => f.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'))))];
  return plugins.flatMap(({ container, discover, unknown }) => {
    if (unknown) return [{ container, how: `its discovery is not known here (${unknown})` }];
    if (!discover) return [];
    if (discover.fileName)
      return entries.some((e) => goFilepathMatch(discover.fileName!, e)) ? [{ container, how: `discover.fileName ${discover.fileName} matches` }] : [];
    if (discover.glob) return below.some((f) => doublestarMatch(discover.glob!, f)) ? [{ container, how: `discover.find.glob ${discover.glob} matches` }] : [];
    if (discover.command) return [{ container, how: 'its discover.find.command runs there, which the gate cannot run' }];
    return [];
  });
}
