/**
 * Parses manifest files, in worker threads when what only the `yaml` library may read is large enough to repay their
 * start-up. The fast reader (model/yaml/fast-manifest.ts) reads most files at a tenth of that library's cost, faster
 * than a worker's results cross back, so it reads on the main thread; what it leaves (anchors, merges, YAML 1.1
 * scalars) is embarrassingly parallel, as kubeconform parallelises. Small trees (this repository) parse on the main thread.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Finding } from '../core/findings.ts';
import { itemPositions, readFast, type ParsedFile, type Resource } from '../core/manifest.ts';
import { parseSource, readSource } from '../core/source.ts';
import { recall, remember as record, storedPositions } from '../stores/parse-store.ts';
import { nextChunk } from './parse-chunks.ts';
import { placesFrom, type PlaceTable } from '../yaml/place-table.ts';

export interface WorkerFile {
  file: string;
  text: string;
  findings: Finding[];
  resources: Omit<Resource, 'positions'>[];
  /** Each document's places, from a worker (a stored parse has none: its places are kept one by one, parse-store.ts). */
  places?: Record<number, PlaceTable>;
}

/** How many chunks each thread's share is cut into: enough that the last one ends soon after the first thread is idle. */
const CHUNKS_PER_THREAD = 8;

/** Below this many bytes of YAML the fast reader leaves, starting workers costs more than it saves. */
export const PARALLEL_THRESHOLD_BYTES = 1_000_000;

/**
 * A worker that parses chunks of files until none is left: it and the main thread take the next chunk from one shared
 * counter, so whoever is faster parses more (a worker starts late, by the time it loads its code), and both end
 * within a chunk of each other.
 */
function runWorker(root: string, chunks: string[][], counter: Int32Array): Promise<WorkerFile[]> {
  return new Promise((resolve, reject) => {
    // Node strips the types of the TypeScript body itself, whatever started the parent (node, vitest).
    const worker = new Worker(new URL('./parse-worker-entry.mjs', import.meta.url), { workerData: { root, chunks, counter } });
    worker.once('message', (result: WorkerFile[]) => {
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`parse worker exited with code ${code}`));
    });
  });
}

/** Splits files into `n` shares of similar total size (largest first, into the lightest share). */
export function shareBySize(files: readonly { file: string; size: number }[], n: number): string[][] {
  const shares = Array.from({ length: n }, () => ({ files: [] as string[], size: 0 }));
  for (const f of [...files].sort((a, b) => b.size - a.size)) {
    const lightest = shares.reduce((a, b) => (b.size < a.size ? b : a));
    lightest.files.push(f.file);
    lightest.size += f.size;
  }
  return shares.map((s) => s.files).filter((s) => s.length > 0);
}

/**
 * Parsed files by path and content. Resources are never mutated after
 * parsing, so a file seen before with the same text is reused: repeated gate
 * runs over near-identical trees (the mutation tests, a watch loop) parse only
 * what changed. Bounded, oldest first out.
 */
const parsedCache = new Map<string, ParsedFile>();
const CACHE_LIMIT = 4000;

/** Forgets every parsed file (benchmarks measure cold parses). */
export function clearParseCache(): void {
  parsedCache.clear();
}

type Source = ReturnType<typeof readSource>;

const keyOf = (file: string, source: Source) => ('text' in source ? `${file}\0${source.text}` : undefined);

function remember(key: string, parsed: ParsedFile): ParsedFile {
  parsedCache.set(key, parsed);
  if (parsedCache.size > CACHE_LIMIT) parsedCache.delete(parsedCache.keys().next().value!);
  return parsed;
}

function parseCached(file: string, source: Source, key = keyOf(file, source)): ParsedFile {
  if (key === undefined) return parseSource(file, source);
  return parsedCache.get(key) ?? remember(key, parseStored(file, (source as { text: string }).text, source));
}

/** A file parsed by an earlier run (parse-store.ts), its positions found again on demand; else parsed now, and stored. */
function parseStored(file: string, text: string, source: Source): ParsedFile {
  const prior = recall<Omit<WorkerFile, 'file' | 'text'>>('manifest', file, text);
  if (prior) return withLazyPositions({ file, text, ...prior });
  const parsed = parseSource(file, source);
  record('manifest', file, text, { findings: parsed.findings, resources: parsed.resources.map(({ positions: _positions, ...rest }) => rest) });
  return parsed;
}

/** A parse that crossed a boundary (a worker thread, the store) without its document: positions parse the text again when a finding needs one. */
function withLazyPositions(r: WorkerFile): ParsedFile {
  const memo = {};
  return {
    file: r.file,
    text: r.text,
    findings: r.findings,
    resources: r.resources.map((res) => {
      const parsed = storedPositions(r.file, r.text, res.doc, memo);
      const table = r.places?.[res.doc];
      return { ...res, positions: itemPositions(table ? placesFrom(table, parsed) : parsed, res.item) };
    }),
  };
}

export async function parseFiles(root: string, files: readonly string[], options: { parallel?: boolean } = {}): Promise<ParsedFile[]> {
  // readSource lstats first: a dangling or looping symlink is a finding, not a crash.
  const sources = new Map(files.map((file) => [file, readSource(root, file)]));
  // Each key once: it holds the file's whole text, and building and hashing it is most of a warm lookup.
  const keys = new Map(files.map((file) => [file, keyOf(file, sources.get(file)!)]));
  // Only what the cache has not seen counts towards going parallel: a second tree that differs in a few files (a diff's other ref) parses only those.
  const unseen = files.filter((file) => {
    const key = keys.get(file);
    return key !== undefined && !parsedCache.has(key);
  });
  const threads = Math.min(availableParallelism(), 8);
  const sizeOf = (file: string) => Buffer.byteLength((sources.get(file) as { text?: string }).text ?? '');
  if (options.parallel === false || threads < 2 || unseen.reduce((sum, file) => sum + sizeOf(file), 0) < PARALLEL_THRESHOLD_BYTES)
    return files.map((file) => parseCached(file, sources.get(file)!, keys.get(file)));
  // The fast reader first, on the main thread: only what it leaves may be worth a worker. Asked for threads (a test,
  // the benchmark's line for them), the workers read every file.
  const local = new Map<string, ParsedFile>();
  const left: string[] = options.parallel ? [...files] : [];
  for (const file of options.parallel ? [] : unseen) {
    const source = sources.get(file)!;
    const fast = 'text' in source ? readFast(file, source.text) : undefined;
    if (fast) local.set(file, fast);
    else left.push(file);
  }
  const leftBytes = left.reduce((sum, file) => sum + sizeOf(file), 0);
  if (!options.parallel && leftBytes < PARALLEL_THRESHOLD_BYTES) {
    for (const file of left) local.set(file, parseSource(file, sources.get(file)!));
    return files.map((file) => fromPool(file, local, new Map()));
  }
  // Chunks of similar size, many more than threads, taken in turn from one counter by the main thread (one worker
  // fewer to start; its resources keep eager positions) and the workers.
  const chunks = shareBySize(
    left.map((file) => ({ file, size: sizeOf(file) })),
    threads * CHUNKS_PER_THREAD,
  );
  const counter = new Int32Array(new SharedArrayBuffer(4));
  const pending = Promise.all(Array.from({ length: threads - 1 }, () => runWorker(root, chunks, counter)));
  for (let chunk = nextChunk(chunks, counter); chunk; chunk = nextChunk(chunks, counter))
    for (const file of chunk) local.set(file, parseSource(file, sources.get(file)!));
  const remote = new Map((await pending).flat().map((r) => [r.file, r]));
  return files.map((file) => fromPool(file, local, remote));

  /** A file's parse from this thread or a worker (kept in the cache), else from the cache. */
  function fromPool(file: string, own: ReadonlyMap<string, ParsedFile>, fromWorkers: ReadonlyMap<string, WorkerFile>): ParsedFile {
    const source = sources.get(file)!;
    const key = keys.get(file);
    const mine = own.get(file);
    if (mine) return key === undefined ? mine : remember(key, mine);
    const r = fromWorkers.get(file);
    if (!r) return parseCached(file, source, key);
    const parsed = withLazyPositions(r);
    return key === undefined ? parsed : remember(key, parsed);
  }
}
