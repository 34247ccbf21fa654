/**
 * One directory source read from disk as Argo CD's repo-server reads it
 * (`findManifests`), through the gate's own modules: the walk's file set
 * (model/argocd/repo-server.ts), each file read and refused as the loader
 * reads it (model/core/source.ts: links that dangle, loop or leave the
 * repository), the skip marker, and the objects each file yields
 * (model/core/manifest.ts). The loader reads the repository's sources the
 * same way from git's list of paths; this reads any folder, so the repo-server's
 * own test data can be judged (`npm run conformance -- --argocd`).
 */
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { parseManifest } from '../core/manifest.ts';
import { readSource } from '../core/source.ts';
import {
  appliedFileRefusal,
  combinedSizeProblem,
  DEFAULT_MAX_COMBINED_MANIFESTS_BYTES,
  directoryFiles,
  SKIP_RENDERING_MARKER,
  sourceParameterFiles,
  type DirectoryOptions,
} from '../argocd/repo-server.ts';

export interface DirectoryRead {
  /** Files the walk reads, repository-relative, in walk order. */
  files: string[];
  /** What the files yield, a List split into its items (what Argo CD applies). */
  objects: { file: string; kind: string; name: string }[];
  /** Documents that hold an object, a List counted once (what findManifests returns). */
  documents: number;
  /** What the gate refuses, with why: Argo CD fails the source on some of these, and applies others the gate will not. */
  refusals: { file: string; message: string }[];
  /** Files Argo CD skips without a word (the skip marker). */
  skipped: string[];
}

/** Every path under `dir` as `filepath.Walk` lists it: folders entered, linked folders not, dot-names included. */
export function walkPaths(root: string, dir: string): string[] {
  const out: string[] = [];
  const visit = (rel: string) => {
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) visit(path);
      else out.push(path);
    }
  };
  visit(dir);
  return out;
}

/** The size of what a path names on disk (a link's target), 0 where nothing is there to read. */
export function sizeOnDisk(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * Reads the directory source at `appPath` of the repository at `repoRoot` (both paths on disk); `maxCombinedBytes`
 * is the repo-server's limit on the files' combined size.
 */
export function readDirectorySource(
  repoRoot: string,
  appPath: string,
  options: DirectoryOptions = {},
  maxCombinedBytes = DEFAULT_MAX_COMBINED_MANIFESTS_BYTES,
): DirectoryRead {
  const root = resolve(repoRoot);
  const app = relative(root, resolve(appPath)).split(sep).join('/');
  const read: DirectoryRead = { files: [], objects: [], documents: 0, refusals: [], skipped: [] };
  if (app.startsWith('..')) {
    read.refusals.push({ file: appPath, message: `${appPath} lies outside the repository ${repoRoot}` });
    return read;
  }
  lstatSync(resolve(appPath));
  read.files = directoryFiles(walkPaths(root, app), app, options);
  const tooBig = combinedSizeProblem(read.files, (file) => sizeOnDisk(join(root, file)), maxCombinedBytes);
  if (tooBig) read.refusals.push({ file: app, message: tooBig });
  for (const file of read.files) {
    const refused = appliedFileRefusal(file);
    if (refused) {
      read.refusals.push({ file, message: refused });
      continue;
    }
    const source = readSource(root, file);
    if (!('text' in source)) {
      read.refusals.push({ file, message: source.finding.message });
      continue;
    }
    if (source.text.includes(SKIP_RENDERING_MARKER)) {
      read.skipped.push(file);
      continue;
    }
    const parsed = parseManifest(file, source.text);
    for (const f of parsed.findings) read.refusals.push({ file, message: `${f.check}: ${f.message}` });
    read.documents += parsed.documents ?? 0;
    for (const r of parsed.resources) read.objects.push({ file, kind: r.kind, name: r.name });
  }
  return read;
}

/**
 * The source parameter files Argo CD merges into a source of Application `appName` at `appPath`
 * (model/argocd/source-parameters.ts), as the checkout holds them: their paths and texts, a folder of that name
 * passed over, as the repo-server passes over it.
 */
export function sourceParameterTexts(root: string, paths: ReadonlySet<string>, appPath: string, appName: string): { file: string; text: string }[] {
  return sourceParameterFiles(paths, appPath, appName).flatMap((file) => {
    const abs = join(root, file);
    return existsSync(abs) && statSync(abs).isFile() ? [{ file, text: readFileSync(abs, 'utf8') }] : [];
  });
}
