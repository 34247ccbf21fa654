/**
 * Contract fakes of actions/upload-artifact v7.0.0 and actions/download-artifact v8.0.1 (their action.yml and
 * `src/` at those tags): one immutable artifact per name in the run, its files kept below the least common folder
 * of the search paths, hidden files left out unless asked for; a download verifies the digest the upload recorded,
 * and fails on a mismatch unless told otherwise (`digest-mismatch`, v8's default `error`).
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, globSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, matchesGlob, relative, sep } from 'node:path';
import type { RunState, StepIo } from './run-state.ts';

const WILDCARD = /[*?[{]/;

/** A search path's root: a path given is itself (its folder, for a file); a glob's is its part before the first wildcard. */
function searchRoot(workspace: string, pattern: string): string {
  const literal = pattern.split('/').filter(Boolean);
  const cut = literal.findIndex((part) => WILDCARD.test(part));
  const root = join(workspace, ...(cut === -1 ? literal : literal.slice(0, cut)));
  return cut === -1 && existsSync(root) && !statSync(root).isDirectory() ? dirname(root) : root;
}

/** The least common folder of the roots (`getMultiPathLCA`), which the artifact's paths are kept below. */
function commonRoot(roots: string[]): string {
  const parts = roots.map((r) => r.split(sep));
  const first = parts[0] ?? [];
  let n = 0;
  while (n < first.length && parts.every((p) => p[n] === first[n])) n++;
  return first.slice(0, n).join(sep) || sep;
}

/** Every file below a path, as @actions/glob walks it: a name starting with a dot, file or folder, is hidden. */
function filesBelow(path: string, includeHidden: boolean): string[] {
  if (!existsSync(path)) return [];
  const hidden = (p: string) => !includeHidden && p.split(sep).pop()!.startsWith('.');
  if (hidden(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => filesBelow(join(path, name), includeHidden));
}

/** The artifact's digest: its paths and bytes, in order (the service hashes the zip; this fake keeps no zip). */
function digestOf(folder: string): string {
  const hash = createHash('sha256');
  for (const file of filesBelow(folder, true).sort()) hash.update(`${relative(folder, file)}\0`).update(readFileSync(file));
  return hash.digest('hex');
}

export async function uploadArtifact(run: RunState, io: StepIo): Promise<void> {
  const name = io.inputs.name || 'artifact';
  const target = join(run.artifacts, name);
  const patterns = (io.inputs.path ?? '')
    .split('\n')
    .map((p) => p.trim())
    .filter(Boolean);
  const includeHidden = io.inputs['include-hidden-files'] === 'true';
  const matched = patterns.flatMap((pattern) =>
    (WILDCARD.test(pattern) ? globSync(pattern, { cwd: io.workspace }).map((m) => join(io.workspace, m)) : [join(io.workspace, pattern)]).flatMap((m) =>
      filesBelow(m, includeHidden),
    ),
  );
  if (matched.length === 0) {
    const message = `No files were found with the provided path: ${patterns.join('\n')}. No artifacts will be uploaded.`;
    const mode = io.inputs['if-no-files-found'] || 'warn';
    if (mode === 'error') throw new Error(message);
    io.log(mode === 'ignore' ? message : `Warning: ${message}`);
    return;
  }
  if (existsSync(target)) {
    if (io.inputs.overwrite !== 'true')
      throw new Error(
        `Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: an artifact with this name already exists on the workflow run`,
      );
    rmSync(target, { recursive: true });
  }
  const roots = patterns.map((p) => searchRoot(io.workspace, p));
  const root = roots.length === 1 ? roots[0]! : commonRoot(roots);
  for (const file of matched) cpSync(file, join(target, relative(root, file)));
  (run.digests ??= {})[name] = digestOf(target);
  io.log(`With the provided path, there will be ${matched.length} file${matched.length === 1 ? '' : 's'} uploaded`);
}

export async function downloadArtifact(run: RunState, io: StepIo): Promise<void> {
  const { name, pattern } = io.inputs;
  const stored = existsSync(run.artifacts) ? readdirSync(run.artifacts).filter((n) => statSync(join(run.artifacts, n)).isDirectory()) : [];
  if (name && !stored.includes(name)) throw new Error(`Artifact '${name}' not found`);
  const wanted = name ? [name] : pattern ? stored.filter((n) => matchesGlob(n, pattern)) : stored;
  const to = join(io.workspace, io.inputs.path || '.');
  const oneFolder = Boolean(name) || io.inputs['merge-multiple'] === 'true' || wanted.length === 1;
  const mismatched = wanted.filter((n) => run.digests?.[n] !== digestOf(join(run.artifacts, n)));
  for (const n of wanted) {
    const into = oneFolder ? to : join(to, n);
    mkdirSync(into, { recursive: true });
    cpSync(join(run.artifacts, n), into, { recursive: true });
  }
  for (const n of mismatched) io.log(`Artifact '${n}' digest validation failed. Please verify the integrity of the artifact.`);
  if (mismatched.length > 0 && (io.inputs['digest-mismatch'] || 'error') === 'error')
    throw new Error(`Digest validation failed for artifact(s): ${mismatched.join(', ')}. Use 'digest-mismatch: warn' to continue on mismatch.`);
}
