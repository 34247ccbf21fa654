/**
 * What an image needs of the pod that runs it, read from the image's own build
 * (its Dockerfile, entrypoint and init scripts) and kept as facts beside the
 * workloads that run it, in `<area>/facts/images.yaml`. The API server knows
 * nothing of an image: a pod that starts an s6 init as user 1000, or a Python
 * server on a read-only root with nowhere to put a temporary file, is
 * accepted, and the container fails at its first step.
 */
import { imageParts } from '../core/workloads.ts';
import type { Repo } from './repo.ts';

/** Where image facts live: one file per area, beside the workloads that run the images (never applied: `*\/facts/*`). */
export const IMAGE_FACTS_GLOB = '*/facts/images.yaml';

export interface ImageNeeds {
  /** The image's repository, registry included, without tag or digest. */
  image: string;
  file: string;
  /** Its init must start as root, with these capabilities, and drops to PUID/PGID itself; `before`: up to that release only. */
  root?: { capabilities: string[]; before?: string };
  /** It writes a temporary directory (Python's tempfile: $TMPDIR, $TEMP, $TMP, /tmp, /var/tmp, /usr/tmp) and fails without one. */
  tempDir?: boolean;
  /**
   * Its init is s6-overlay v3 (3.2.1 or later): started as any user but root, with no privilege escalation, its
   * preinit cannot make /run its own and stops, unless /run is a writable volume and
   * S6_YES_I_WANT_A_WORLD_WRITABLE_RUN_BECAUSE_KUBERNETES is set (libexec/preinit).
   */
  s6Overlay?: boolean;
  /** The only HTTP paths it answers without a login: a kubelet's httpGet probe, which never logs in, must ask one of them. */
  openPaths?: string[];
  /** HTTP paths whose every request polls the device or service the image watches (an exporter's scrape): no probe's path. */
  pollPaths?: string[];
  /** HTTP paths that answer only once the app is ready, after its start-up work (a WAL replayed): no liveness probe's path. */
  readyPaths?: string[];
  /**
   * The image's ENTRYPOINT, when `root` and `s6Overlay` are its needs rather than the app's: a container whose
   * `command` replaces it never runs it (the kubelet's `command` overrides ENTRYPOINT, and CMD with it).
   */
  entrypoint?: string[];
  /** Settings read from the environment that work only together: a variable named like `set` is ignored without its `needs` (`*` the same text in both). */
  envTogether?: { set: string; needs: string }[];
  /**
   * Settings the image stops without, when others hold given values: with every `when` variable set to one of its
   * values, each of `needs` is set, or the image reads it from a file under one of `orFilesUnder`.
   */
  envNeeds?: EnvNeed[];
  /** Where in the image's build that is read. */
  source: string;
}

export interface EnvNeed {
  when: Record<string, string[]>;
  needs: string[];
  orFilesUnder?: string[];
}

/** An image reference as the registry resolves it: Docker Hub's implicit host and library/ namespace dropped. */
export const imageKey = (image: string): string =>
  imageParts(image)
    .name.replace(/^(docker\.io|index\.docker\.io|registry-1\.docker\.io)\//, '')
    .replace(/^library\//, '');

const isPathList = (paths: unknown): boolean => Array.isArray(paths) && paths.length > 0 && paths.every((p) => typeof p === 'string' && p.startsWith('/'));

const isStringList = (list: unknown): list is string[] => Array.isArray(list) && list.length > 0 && list.every((v) => typeof v === 'string' && v !== '');
const isEnvNeed = (need: unknown): boolean => {
  const { when, needs, orFilesUnder } = (need ?? {}) as Record<string, unknown>;
  return (
    typeof when === 'object' &&
    when !== null &&
    !Array.isArray(when) &&
    Object.keys(when).length > 0 &&
    Object.values(when).every(isStringList) &&
    isStringList(needs) &&
    (orFilesUnder === undefined || isPathList(orFilesUnder))
  );
};

/** A variable name with one `*` in it. */
const ENV_PATTERN = /^[A-Za-z0-9_]*\*[A-Za-z0-9_]*$/;
const isEnvPair = (pair: unknown): boolean => {
  const { set, needs } = (pair ?? {}) as Record<string, unknown>;
  return typeof set === 'string' && typeof needs === 'string' && ENV_PATTERN.test(set) && ENV_PATTERN.test(needs);
};

/** Every image fact of the repository, by image, and every entry that cannot be read, with its file. */
export function imageNeeds(
  repo: Pick<Repo, 'dataFiles'>,
  isFactsFile: (file: string) => boolean,
): { needs: Map<string, ImageNeeds>; problems: { file: string; message: string }[] } {
  const needs = new Map<string, ImageNeeds>();
  const problems: { file: string; message: string }[] = [];
  for (const data of repo.dataFiles.values()) {
    if (!isFactsFile(data.file)) continue;
    const list = (data.data as { images?: unknown } | null)?.images;
    if (!Array.isArray(list)) {
      problems.push({
        file: data.file,
        message: `${data.file} must hold images: a list of {image, startsAs?, capabilities?, before?, tempDir?, s6Overlay?, openPaths?, pollPaths?, readyPaths?, entrypoint?, envTogether?, envNeeds?, source}`,
      });
      continue;
    }
    list.forEach((raw: Record<string, unknown>, i) => {
      const entry = `${data.file} entry ${i + 1}`;
      const { image, startsAs, capabilities, before, tempDir, openPaths, pollPaths, readyPaths, s6Overlay, entrypoint, envTogether, envNeeds, source } =
        raw ?? {};
      if (typeof image !== 'string' || typeof source !== 'string' || source.trim() === '')
        return problems.push({ file: data.file, message: `${entry} needs an image and the source in its build that says what it needs` });
      if (startsAs !== undefined && startsAs !== 'root') return problems.push({ file: data.file, message: `${entry}: startsAs can only be root` });
      if (startsAs === 'root' && !(Array.isArray(capabilities) && capabilities.every((c) => typeof c === 'string')))
        return problems.push({ file: data.file, message: `${entry}: an image that starts as root lists the capabilities its init uses` });
      if (before !== undefined && (typeof before !== 'string' || !/^\d+\.\d+\.\d+$/.test(before)))
        return problems.push({ file: data.file, message: `${entry}: before must be a release (x.y.z)` });
      for (const [flag, value] of [
        ['tempDir', tempDir],
        ['s6Overlay', s6Overlay],
      ] as const)
        if (value !== undefined && typeof value !== 'boolean') return problems.push({ file: data.file, message: `${entry}: ${flag} is true or false` });
      for (const [field, paths, says] of [
        ['openPaths', openPaths, 'the image answers without a login'],
        ['pollPaths', pollPaths, 'whose every request polls what the image watches'],
        ['readyPaths', readyPaths, 'that answer only once the app is ready'],
      ] as const)
        if (paths !== undefined && !isPathList(paths))
          return problems.push({ file: data.file, message: `${entry}: ${field} lists the absolute paths ${says}` });
      if (entrypoint !== undefined && !(Array.isArray(entrypoint) && entrypoint.length > 0 && entrypoint.every((e) => typeof e === 'string')))
        return problems.push({ file: data.file, message: `${entry}: entrypoint is the image's ENTRYPOINT, a list of strings` });
      if (envTogether !== undefined && !(Array.isArray(envTogether) && envTogether.every(isEnvPair)))
        return problems.push({
          file: data.file,
          message: `${entry}: envTogether lists {set, needs}: two variable names, each with one * standing for the same text`,
        });
      if (envNeeds !== undefined && !(Array.isArray(envNeeds) && envNeeds.every(isEnvNeed)))
        return problems.push({
          file: data.file,
          message: `${entry}: envNeeds lists {when, needs, orFilesUnder?}: when maps variables to the values that make the need, needs names variables, orFilesUnder absolute paths`,
        });
      const key = imageKey(image);
      if (needs.has(key)) return problems.push({ file: data.file, message: `${entry} names ${key} again (first in ${needs.get(key)!.file})` });
      needs.set(key, {
        image: key,
        file: data.file,
        source,
        ...(startsAs === 'root' ? { root: { capabilities: capabilities as string[], ...(typeof before === 'string' ? { before } : {}) } } : {}),
        ...(tempDir === true ? { tempDir: true } : {}),
        ...(s6Overlay === true ? { s6Overlay: true } : {}),
        ...(Array.isArray(openPaths) ? { openPaths: openPaths as string[] } : {}),
        ...(Array.isArray(pollPaths) ? { pollPaths: pollPaths as string[] } : {}),
        ...(Array.isArray(readyPaths) ? { readyPaths: readyPaths as string[] } : {}),
        ...(Array.isArray(entrypoint) ? { entrypoint: entrypoint as string[] } : {}),
        ...(Array.isArray(envTogether) ? { envTogether: envTogether as { set: string; needs: string }[] } : {}),
        ...(Array.isArray(envNeeds) ? { envNeeds: envNeeds as EnvNeed[] } : {}),
      });
    });
  }
  return { needs, problems };
}
