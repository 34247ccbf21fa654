/**
 * A whole run's verdict, kept for the next run on the same inputs: a run that changes nothing (the second `npm run
 * validate`, a pre-commit hook) loads and renders as always, then finds the schema, admission and policy stages'
 * verdict already made, instead of judging 800 resources again.
 *
 * The key is every input those stages read, so a kept verdict is the same computation:
 * - the tree as loaded and rendered: each manifest's name and text, each render's status, message, values files, the
 *   files it consumed and what its output is made of (the render cache's keys of its prints and chart interface, each a
 *   digest of every input: the chart's digest, the values, the tools, the API versions), the render tools' versions;
 * - every other file of the checkout (data files, the facts, code a check reads, the gate's own sources when they
 *   live in it): its path, and its size, inode, mode, modification and change times (change time is the kernel's, set
 *   on every write and not by `touch`), as git's own index judges a file unchanged;
 * - the options the stages read (the version, `--skip`, `--reject`, `--strict`, `--require-rendered`...);
 * - the installed packages (npm's record of the tree it installed), the CRD schemas the gate bundles, and, through
 *   the store, the gate's code and Node's version.
 * Nothing in it is a clock: no check reads the time (sync windows are judged over a fixed year). A file the run cannot
 * stat, an option that is not data, or an install without npm's record: no key, and the run judges in full.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { digest } from '../model/stores/outcome-store.ts';
import { byText } from '../model/core/findings.ts';
import { keepValue, keptValue } from '../model/stores/kept-values.ts';
import { checkoutTree } from '../model/repository/repo.ts';
import { REPO_CRD_DIR } from '../schema/repo-crds.ts';
import type { Tree } from './stages/render.ts';
import type { GateOptions } from './options.ts';
import type { GateResult } from './result.ts';

/** Options that do not change a verdict: where and how the run reads (the tree and render tools are keyed themselves), and callbacks. */
const NOT_JUDGED_BY = new Set(['paths', 'root', 'cwd', 'stdin', 'onProgress', 'parallel', 'env']);

/** How long before a run a file must have last changed to be keyed by its state: more than any file system's timestamp granularity (two seconds on FAT). */
export const SETTLED_MS = 2_000;

/** A run's inputs, and the verdict kept for them if there is one. */
export interface VerdictKey {
  inputs: string[];
  /** The files' states alone, named again before the verdict is kept. */
  files: string;
  tree: Tree;
  startedAt: number;
  kept?: GateResult;
}

/** The kept verdicts' store (model/stores/kept-values.ts). */
const VERDICTS = 'verdicts';

/**
 * The inputs of the schema, admission and policy stages on this tree and the verdict kept for them; undefined when
 * they cannot all be named, or when a file changed within SETTLED_MS of `startedAt` (the run's start, by the wall
 * clock file times are set by). A file changed that recently may change again within its timestamp's granularity and
 * keep its state: git calls its index entry racily clean and reads the file again; here the run is judged in full,
 * and its verdict not kept.
 */
export function keptVerdict(tree: Tree, options: GateOptions, startedAt: number): VerdictKey | undefined {
  const asked = askedOptions(options);
  const installed = installedPackages();
  const files = fileStates(tree, startedAt);
  const rendered = treeDigest(tree);
  if (asked === undefined || installed === undefined || files === undefined || rendered === undefined) return undefined;
  const inputs = [asked, installed, files, rendered];
  return { inputs, files, tree, startedAt, kept: keptValue<GateResult>(VERDICTS, inputs) };
}

/** Keeps a run's verdict, if no file changed while the stages read the tree: the files' states named again, alike. */
export function keepVerdict(key: VerdictKey, result: GateResult): void {
  if (fileStates(key.tree, key.startedAt) === key.files) keepValue(VERDICTS, key.inputs, result);
}

function askedOptions(options: GateOptions): string | undefined {
  const entries = Object.entries(options)
    .filter(([name, value]) => !NOT_JUDGED_BY.has(name) && value !== undefined)
    .sort(([a], [b]) => byText(a, b));
  if (entries.some(([, value]) => typeof value === 'function')) return undefined;
  return JSON.stringify(entries);
}

const requireHere = createRequire(import.meta.url);
let installedDigest: string | null | undefined;

/** npm's record of the installed tree (node_modules/.package-lock.json): every package the gate loads, at its version. */
function installedPackages(): string | undefined {
  if (installedDigest === undefined) {
    try {
      const modules = dirname(dirname(requireHere.resolve('yaml/package.json')));
      installedDigest = digest(readFileSync(join(modules, '.package-lock.json'), 'utf8'));
    } catch {
      installedDigest = null;
    }
  }
  return installedDigest ?? undefined;
}

/** Each checkout file's path and state; undefined when one cannot be read (removed during the run) or changed too recently. */
function fileStates(tree: Tree, startedAt: number): string | undefined {
  const settledBefore = BigInt(Math.floor(startedAt - SETTLED_MS)) * 1_000_000n;
  const repo = tree.repo;
  const paths = [...new Set([...checkoutTree(repo), ...repo.files, ...repo.dataFiles.keys()])].sort();
  try {
    // The bundled CRD schemas sit beside the gate's code, which the built gate's digest (its one bundle) leaves out.
    const bundled = readdirSync(REPO_CRD_DIR).sort();
    const states = [...paths.map((p) => fileState(repo.root, p, settledBefore)), ...bundled.map((name) => fileState(REPO_CRD_DIR, name, settledBefore))];
    return states.includes(undefined) ? undefined : digest(states.join('\n'));
  } catch {
    return undefined;
  }
}

/** A file's state as git's index judges it unchanged; undefined when it changed too recently to tell; throws when it cannot be read. */
function fileState(dir: string, path: string, settledBefore: bigint): string | undefined {
  const s = statSync(join(dir, path), { bigint: true });
  if (s.ctimeNs >= settledBefore || s.mtimeNs >= settledBefore) return undefined;
  return `${path}\0${s.size}:${s.ino}:${s.mode}:${s.mtimeNs}:${s.ctimeNs}`;
}

/**
 * The loaded and rendered tree: every file's text as parsed, and what each render did and is made of (its prints and
 * chart interface, by the render cache's keys, which digest every input of each); undefined where a rendered source
 * does not say what it is made of.
 */
function treeDigest(tree: Tree): string | undefined {
  if (tree.renders.some((r) => r.status === 'rendered' && !r.madeOf?.length)) return undefined;
  const texts = tree.parsed.filter((p) => p.renderedBy === undefined).map((p) => `${p.file}\0${digest(p.text)}`);
  const renders = tree.renders.map((r) => ({
    app: r.app.name,
    label: r.label,
    status: r.status,
    message: r.message,
    values: r.values.map((v) => v.file),
    consumed: r.consumedFiles,
    nondeterministic: r.nondeterministic,
    madeOf: r.madeOf ?? [],
  }));
  return digest(JSON.stringify({ texts, renders, checked: tree.checked, tools: tree.tools ?? null, root: tree.repo.root }));
}
