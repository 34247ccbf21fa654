/**
 * `npm run fuzz -- [--seed N] [--runs N] [--greens] [--remove | --misspell]`: the gate on copies of this repository in
 * which one node of one manifest holds a value of another type (a number where a list is written, a null item, a map
 * for a string), or, with --remove, is gone (what a pull request most often does to a guard: deletes it), or, with
 * --misspell, is written with a typo (two letters swapped or one changed, in its key or in its text: what a hand
 * writes, and what no change of type makes: a name another object refers to, a key a chart or program reads), each run
 * seeded, so a run is repeated by its seed. What it looks for: a check that throws (the runner's fault finding,
 * "could not judge the repository"), a gate that throws, and, with --greens, every broken copy the gate passes, to
 * read one by one: some are values the cluster takes (a label that is a number-like string), others a judgement the
 * gate lacks. Exit 1 where any check or the gate threw, else 0.
 *
 * The copy holds the manifests, the chart lock and the files the metrics catalog pins, in a folder of its own, which
 * is removed at the end; each run restores the file it broke. Charts render from the chart cache as the gate's do.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { isMap, isScalar, isSeq, parseAllDocuments, type Document } from 'yaml';
import { frontDoor } from './lib/front-door.ts';
import { oneLine, runCommand, UsageError, type CommandIo } from './lib/command.ts';

/** The values a node is replaced by: each of another type than most nodes hold. */
const WRONG: readonly unknown[] = [null, 0, -1, 1.5, 99999999999, true, '', 'x', 'a'.repeat(300), [], [null], {}, { a: null }];

/** Copied beside the manifest roots: what the gate reads outside them (and the chart lock). */
const ALSO_COPIED = ['portfolio-api/src/metrics.ts'];

/** mulberry32: a small seeded generator, so a seed names one sequence of broken copies on every machine. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type PathKey = string | number;

/** Every node's path under a document's root, keys of maps and indexes of lists. */
function nodePaths(doc: Document): PathKey[][] {
  const out: PathKey[][] = [];
  const walk = (node: unknown, at: PathKey[]) => {
    if (isMap(node))
      for (const pair of node.items) {
        if (!isScalar(pair.key) || (typeof pair.key.value !== 'string' && typeof pair.key.value !== 'number')) continue;
        const here = [...at, pair.key.value];
        out.push(here);
        walk(pair.value, here);
      }
    else if (isSeq(node))
      node.items.forEach((item, i) => {
        out.push([...at, i]);
        walk(item, [...at, i]);
      });
  };
  walk(doc.contents, []);
  return out;
}

function yamlFiles(root: string, roots: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && /\.ya?ml$/.test(entry.name)) out.push(relative(root, full));
    }
  };
  for (const r of roots) if (existsSync(join(root, r)) && statSync(join(root, r)).isDirectory()) walk(join(root, r));
  return out.sort();
}

/**
 * `text` with one typo at the place `draw` (in [0, 1)) names: the letter there swapped with the next where they
 * differ, else changed to its neighbour in the alphabet (a digit to the next digit). Undefined where the text holds
 * no letter or digit to change.
 */
export function misspell(text: string, draw: number): string | undefined {
  // By code unit: an ASCII letter or digit is never half of a surrogate pair, so each index is one character.
  const places: number[] = [];
  for (let i = 0; i < text.length; i++) if (/[A-Za-z0-9]/.test(text[i]!)) places.push(i);
  if (places.length === 0) return undefined;
  const i = places[Math.floor(draw * places.length)]!;
  const [c, after] = [text[i]!, text[i + 1]];
  if (after !== undefined && after !== c && /[A-Za-z0-9]/.test(after)) return text.slice(0, i) + after + c + text.slice(i + 2);
  const changed = /[0-9]/.test(c) ? String((Number(c) + 1) % 10) : c === 'z' ? 'y' : c === 'Z' ? 'Y' : String.fromCharCode(c.charCodeAt(0) + 1);
  return text.slice(0, i) + changed + text.slice(i + 1);
}

/** How a copy breaks its node: a value of another type, removed, or written with a typo. */
export type FuzzMode = 'replace' | 'remove' | 'misspell';

export interface FuzzRun {
  file: string;
  path: PathKey[];
  /** The value the node was given; absent where the node was removed or misspelt. */
  value?: unknown;
  removed?: true;
  /** The text written with a typo: the node's key or its string value, before and after. */
  misspelt?: { key: boolean; from: string; to: string };
  outcome: 'red' | 'green' | 'fault' | 'crash';
  /** Why a check or the gate threw; on a green, how many more things than the unbroken copy's it left unjudged. */
  detail?: string;
}

/** One broken copy after another, `runs` of them from `seed`, each judged by the gate and restored. */
export interface FuzzOptions {
  seed: number;
  runs: number;
  env: NodeJS.ProcessEnv;
  /** How each copy breaks its node (default: a value of another type). */
  mode?: FuzzMode;
}

/**
 * Writes the node at `path` with a typo, in its key (where `inKey`, or its value is no string) or in its string value;
 * the change made, or undefined where there is nothing to misspell or the new key is one the map holds already (a
 * duplicate key, which a parser refuses, is no typo the gate could miss).
 */
function misspellNode(doc: Document, path: PathKey[], inKey: boolean, draw: number): FuzzRun['misspelt'] {
  const value = doc.getIn(path);
  const last = path.at(-1);
  if (typeof value === 'string' && value !== '' && !(inKey && typeof last === 'string')) {
    const to = misspell(value, draw);
    if (to === undefined) return undefined;
    doc.setIn(path, to);
    return { key: false, from: value, to };
  }
  if (typeof last !== 'string') return undefined;
  const parent = path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true);
  const to = misspell(last, draw);
  if (!isMap(parent) || to === undefined || parent.has(to)) return undefined;
  const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === last);
  if (pair === undefined) return undefined;
  pair.key = doc.createNode(to);
  return { key: true, from: last, to };
}

export async function fuzz({ seed, runs, env, mode = 'replace' }: FuzzOptions, onRun: (r: FuzzRun) => void): Promise<void> {
  const { allFindings, charts, MANIFEST_ROOTS, REPO_ROOT, runGate } = await frontDoor();
  const copy = mkdtempSync(join(tmpdir(), 'gate-fuzz-'));
  try {
    for (const r of [...MANIFEST_ROOTS, charts.CHART_LOCK_FILE, ...ALSO_COPIED])
      if (existsSync(join(REPO_ROOT, r))) cpSync(join(REPO_ROOT, r), join(copy, r), { recursive: true, filter: (src) => !src.includes('node_modules') });
    const files = yamlFiles(copy, MANIFEST_ROOTS);
    // What the unbroken copy leaves unjudged: a broken copy that passes with more of it was said "not judged", which a
    // reader of the greens reads apart from a copy the gate passed as fine.
    const unjudged = (summary: { notRendered: number; notJudged?: number; skipped: number }) =>
      summary.notRendered + (summary.notJudged ?? 0) + summary.skipped;
    const baseline = unjudged((await runGate({ root: copy, cwd: copy, env })).summary);
    const next = generator(seed);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
    for (let done = 0, tries = 0; done < runs && tries < runs * 20; tries++) {
      const file = pick(files);
      const original = readFileSync(join(copy, file), 'utf8');
      const docs = parseAllDocuments(original);
      if (!Array.isArray(docs) || docs.length === 0 || docs.some((d) => d.errors.length > 0)) continue;
      const doc = pick(docs);
      const paths = nodePaths(doc);
      if (paths.length === 0) continue;
      const path = pick(paths);
      // The same draws in every mode, so a seed names the same nodes whether they are replaced, removed or misspelt
      // (a misspelling draws twice more, after them).
      const wrong = pick(WRONG);
      let change: Pick<FuzzRun, 'value' | 'removed' | 'misspelt'>;
      if (mode === 'misspell') {
        const misspelt = misspellNode(doc, path, next() < 0.5, next());
        if (misspelt === undefined) continue;
        change = { misspelt };
      } else if (mode === 'remove') {
        doc.deleteIn(path);
        change = { removed: true };
      } else {
        doc.setIn(path, doc.createNode(wrong));
        change = { value: wrong };
      }
      writeFileSync(
        join(copy, file),
        docs
          .map((d, i) => {
            const text = d.toString();
            return i === 0 || text.startsWith('---') ? text : `---\n${text}`;
          })
          .join(''),
      );
      done++;
      try {
        const result = await runGate({ root: copy, cwd: copy, env });
        const findings = allFindings(result);
        const fault = findings.find((f) => /could not judge the repository/.test(f.message));
        if (fault) onRun({ file, path, ...change, outcome: 'fault', detail: `[${fault.check}] ${fault.message}` });
        else if (findings.length + result.summary.invalid + result.summary.errors > 0) onRun({ file, path, ...change, outcome: 'red' });
        else {
          const more = unjudged(result.summary) - baseline;
          onRun({ file, path, ...change, outcome: 'green', ...(more > 0 ? { detail: `${more} more not judged or not rendered` } : {}) });
        }
      } catch (err) {
        onRun({ file, path, ...change, outcome: 'crash', detail: oneLine(err) });
      } finally {
        writeFileSync(join(copy, file), original);
      }
    }
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

const shown = (v: unknown) => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
};

/** What a run did to its node, as its line says it. */
const changeShown = (r: FuzzRun): string =>
  r.removed ? 'removed' : r.misspelt ? `${r.misspelt.key ? 'key' : 'text'} ${shown(r.misspelt.from)} -> ${shown(r.misspelt.to)}` : `= ${shown(r.value)}`;

const positiveInteger = (name: string, raw: string | boolean | (string | boolean)[] | undefined, fallback: number): number => {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new UsageError(`--${name} must be a whole number, got "${String(raw)}"`);
  return n;
};

export function fuzzCommand(
  argv: string[],
  io: CommandIo = { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) },
): Promise<number> {
  return runCommand(
    {
      name: 'fuzz',
      usage: 'fuzz [--seed N] [--runs N] [--greens] [--remove | --misspell]',
      help: `Judges copies of this repository, each with one node of one manifest replaced by a
value of another type (with --remove: removed; with --misspell: written with a typo in
its key or its text), and reports every check or gate that threw (exit 1), with
--greens also every broken copy the gate passed. --seed (default 1) names the
sequence, --runs (default 100) its length. Charts render from the chart cache
(HOMELAB_CACHE_DIR), as the gate's do; offline, the charts are not rendered.`,
      options: { seed: { type: 'string' }, runs: { type: 'string' }, greens: { type: 'boolean' }, remove: { type: 'boolean' }, misspell: { type: 'boolean' } },
      positionals: { min: 0, max: 0 },
      async run({ values }) {
        const seed = positiveInteger('seed', values.seed, 1);
        const runs = positiveInteger('runs', values.runs, 100);
        const counts = { red: 0, green: 0, fault: 0, crash: 0 };
        if (values.remove === true && values.misspell === true) throw new UsageError('--remove and --misspell break a node two ways: give one');
        const mode: FuzzMode = values.remove === true ? 'remove' : values.misspell === true ? 'misspell' : 'replace';
        await fuzz({ seed, runs, env: process.env, mode }, (r) => {
          counts[r.outcome]++;
          if (r.outcome === 'fault' || r.outcome === 'crash' || (r.outcome === 'green' && values.greens))
            io.stdout(`${r.outcome.toUpperCase()} ${r.file} ${JSON.stringify(r.path)} ${changeShown(r)}${r.detail ? `: ${r.detail}` : ''}\n`);
        });
        io.stdout(
          `seed ${seed}: ${counts.red + counts.green + counts.fault + counts.crash} runs, ${counts.red} red, ${counts.green} passed, ${counts.fault} with a check that threw, ${counts.crash} with the gate thrown\n`,
        );
        return counts.fault + counts.crash > 0 ? 1 : 0;
      },
    },
    argv,
    io,
  );
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await fuzzCommand(process.argv.slice(2));
