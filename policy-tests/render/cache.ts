/**
 * The render cache: each render kept by its inputs under the cache root, so
 * an unchanged source costs nothing; a miss renders twice, to catch output
 * that changes between renders. Also a chart's interface, by digest, and the
 * API versions the last run settled at.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ChartScope, Nondeterminism } from '../model/argocd/rendered.ts';
import { scalarText } from '../model/core/text.ts';
import { writeFileAtomic } from '../model/stores/write-atomic.ts';
import { gateCodeDigest } from '../model/stores/outcome-store.ts';
import { chartScopeFromFolder } from './chart-files.ts';
import { loadedFiles } from './chart-extract.ts';
import { READS_CAPABILITIES, UNREPEATABLE_FUNCTIONS } from './chart-traits.ts';
import { hash, runTool, type Context, type Invocation } from './context.ts';
import { loadFastReader } from './fast-yaml.ts';
import { splitRendered, type ChunkMemo, type RenderedDoc } from './output.ts';
import { cacheRoot } from './tools.ts';

function docKey(doc: RenderedDoc): string {
  const m = (doc.object.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  return `${scalarText(doc.object.apiVersion)}/${scalarText(doc.object.kind)}/${scalarText(m.namespace ?? '')}/${scalarText(m.name ?? '')}`;
}

/** Objects whose two renders differ (a randAlphaNum password, and the checksum it feeds). */
export function differences(first: string, second: string, memo?: ChunkMemo): Nondeterminism[] {
  if (first === second) return [];
  const a = splitRendered(first, memo).docs;
  const b = new Map(splitRendered(second, memo).docs.map((d) => [docKey(d), JSON.stringify(d.object)]));
  const out: Nondeterminism[] = [];
  for (const doc of a) {
    if (b.get(docKey(doc)) === JSON.stringify(doc.object)) continue;
    out.push({
      kind: String(doc.object.kind),
      name: scalarText(((doc.object.metadata ?? {}) as { name?: unknown }).name ?? ''),
      ...(doc.template ? { template: doc.template } : {}),
    });
  }
  return out.length ? out : [{ kind: '(output)', name: 'the order or number of objects' }];
}

/** A render as the cache keeps it: the objects already parsed (JSON reads far faster than YAML), or the tool's complaint about its output. */
export interface CachedRender {
  docs: RenderedDoc[];
  problem?: string;
  nondeterministic: Nondeterminism[];
  /** The cache's key for this print: a digest of every input of the invocation (a kept verdict names the print by it). */
  key?: string;
}

/**
 * An entry on disk: the render, and the code that read the tool's print, which is kept beside it (`<key>.print`, read
 * only when needed: a warm run reads the objects alone). The key names what Helm or kustomize was asked, not how the
 * gate reads what it printed: an entry read by other code (a gate that reads output otherwise since, as YAML 1.1 where
 * it read YAML 1.2) is read again from its print, never trusted, and the tool not run again.
 */
interface RenderEntry extends CachedRender {
  reader?: string;
}

const printOf = (file: string) => file.replace(/\.json$/, '.print');

/** The code that reads a print: the gate's whole code (model/stores/outcome-store.ts), or undefined where it cannot be read. */
function readerCode(): string | undefined {
  try {
    return gateCodeDigest();
  } catch {
    return undefined;
  }
}

/** An entry's render, read again from its print where other code read it; undefined where its print is gone (made before prints were kept, or pruned). */
async function readByThisCode(ctx: Context, file: string, entry: RenderEntry): Promise<CachedRender | undefined> {
  const { reader, ...render } = entry;
  if (reader !== undefined && reader === readerCode()) return render;
  let print: string;
  try {
    print = readFileSync(printOf(file), 'utf8');
  } catch {
    return undefined;
  }
  await loadFastReader();
  const again = renderOf(splitRendered(print, ctx.chunks), render.nondeterministic);
  const code = readerCode();
  // Kept for the next run only where this code can name itself: else every run would write it again.
  if (code !== undefined) {
    const kept: RenderEntry = { ...again, reader: code };
    writeFileAtomic(file, JSON.stringify(kept));
    readEntries.set(file, kept);
  }
  return again;
}

/** A print's objects as the cache keeps them: the objects, and the first thing wrong with the output, if any. */
function renderOf({ docs, problems }: ReturnType<typeof splitRendered>, nondeterministic: Nondeterminism[]): CachedRender {
  return { docs, nondeterministic, ...(problems.length ? { problem: problems[0]!.message } : {}) };
}

/**
 * Cache entries already read in this process, by file. Rendered objects are
 * never mutated (like parsed files), so a second tree that renders the same
 * inputs (a diff's other ref, a watch loop) reads nothing from disk. Bounded.
 */
const readEntries = new Map<string, unknown>();

/** The render tier's caches under the cache root: each entry regenerable, kept until no run has read it for a while. */
const RENDER_CACHES = ['renders', 'scopes'] as const;

/** How long an entry of the render tier's caches no run has read stays, before `charts:pull --prune` takes it out. */
export const UNREAD_DAYS = 30;

/** An entry read from disk is marked read (its time set to now), so a prune takes out only what no run reads. */
function markRead(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    // Gone meanwhile, or a read-only cache: it is only not marked.
  }
}

/**
 * Takes out of the render tier's caches every entry no run has read (or written) for UNREAD_DAYS: the renders of a
 * chart version no longer pinned, the scopes of a chart or of rules long changed. Each folder with what it held.
 */
export function pruneUnread(env: NodeJS.ProcessEnv, now = Date.now()): { folder: string; entries: number; bytes: number }[] {
  const cutoff = now - UNREAD_DAYS * 24 * 60 * 60 * 1000;
  return RENDER_CACHES.map((folder) => {
    const dir = join(cacheRoot(env), folder);
    const pruned = { folder, entries: 0, bytes: 0 };
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      return pruned;
    }
    for (const name of names) {
      const file = join(dir, name);
      try {
        const stat = statSync(file);
        if (!stat.isFile() || stat.mtimeMs >= cutoff) continue;
        rmSync(file, { force: true });
        pruned.entries++;
        pruned.bytes += stat.size;
      } catch {
        // Gone meanwhile: another run pruned it.
      }
    }
    return pruned;
  });
}

function readEntry<T>(file: string): T | undefined {
  const known = readEntries.get(file);
  if (known !== undefined) return known as T;
  if (!existsSync(file)) return undefined;
  try {
    const entry = JSON.parse(readFileSync(file, 'utf8')) as T;
    markRead(file);
    // A render's print with it: what a gate that reads output otherwise reads again (a scope has none).
    markRead(printOf(file));
    readEntries.set(file, entry);
    if (readEntries.size > 256) readEntries.delete(readEntries.keys().next().value!);
    return entry;
  } catch {
    return undefined; // A torn entry is made again.
  }
}

/**
 * Runs an invocation through the render cache. A miss renders twice, to catch nondeterminism; a pass that defers
 * the check (ctx.deferDeterminism) renders once and leaves the second print owed, uncached, for the pass that
 * settles (render.ts), since a pass whose API versions then grow throws its output away.
 */
export async function cachedRun(ctx: Context, inv: Invocation, beforeRun?: () => Promise<void>): Promise<CachedRender> {
  const dir = join(cacheRoot(ctx.env), 'renders');
  const key = hash(inv.key);
  const file = join(dir, `${key}.json`);
  const entry = readEntry<RenderEntry>(file);
  const cached = entry && (await readByThisCode(ctx, file, entry));
  if (cached) return { ...cached, key };
  await loadFastReader();
  const sourceKey = hash(inv.sourceKey);
  const earlier = ctx.earlier.get(sourceKey);
  // This same invocation printed once in an earlier pass, its second print owed: that print is the first.
  const owedHere = earlier?.owed === key;
  if (!owedHere) await beforeRun?.();
  const first = owedHere ? earlier.first : await runTool(ctx, inv);
  // Two prints of the source alike, the earlier one with other API versions: the determinism check is answered.
  const seenAlike = !owedHere && earlier?.first === first;
  const needsSecond = ctx.checkDeterminism && !seenAlike && !inv.pure;
  // The same text splits into the same objects: an earlier pass's are reused (that pass's renders are dropped for this one's).
  const split = earlier?.first === first ? earlier.split : splitRendered(first, ctx.chunks);
  if (needsSecond && ctx.deferDeterminism) {
    ctx.earlier.set(sourceKey, { first, split, owed: key });
    ctx.owed.add(sourceKey);
    return { ...renderOf(split, []), key };
  }
  const nondeterministic = needsSecond ? differences(first, await runTool(ctx, inv), ctx.chunks) : [];
  ctx.earlier.set(sourceKey, { first, split });
  const made = renderOf(split, nondeterministic);
  writeFileAtomic(printOf(file), first);
  writeFileAtomic(file, JSON.stringify({ ...made, reader: readerCode() }));
  return { ...made, key };
}

/**
 * The rules a scope was read by: a stored scope read by other rules (a function added to the list, packed
 * subcharts read in since) is read again, never trusted to say a chart prints alike or what its subcharts take.
 */
const SCOPE_RULES = hash([
  'packed subcharts read in, _ and . subcharts passed over whole, traits included, read from the extracted folder as Helm loads it',
  String(READS_CAPABILITIES),
  ...UNREPEATABLE_FUNCTIONS,
]).slice(0, 12);

/**
 * A chart's interface (defaults, templates, subcharts) and its traits, read once per archive (`archiveKey`: its
 * digest, and how it was unpacked where not as Argo CD extracts it) from the folder that is rendered
 * (chart-extract.ts), as Helm loads that folder.
 */
export async function cachedScope(ctx: Context, folder: string, archiveKey: string): Promise<ChartScope> {
  const file = join(cacheRoot(ctx.env), 'scopes', `${archiveKey.replace(/^sha256:/, '')}-${basename(folder)}-${SCOPE_RULES}.json`);
  type Stored = Omit<ChartScope, 'subcharts'> & { subcharts: [string, Stored][] };
  const revive = (s: Stored): ChartScope => ({ ...s, subcharts: new Map(s.subcharts.map(([k, v]) => [k, revive(v)])) });
  const store = (s: ChartScope): Stored => ({ ...s, subcharts: [...s.subcharts].map(([k, v]) => [k, store(v)]) });
  const stored = readEntry<Stored>(file);
  if (stored) return revive(stored);
  await loadFastReader();
  const scope = await chartScopeFromFolder(loadedFiles(folder), ctx.limits.unpackedBytes);
  writeFileAtomic(file, JSON.stringify(store(scope)));
  return scope;
}

export function readSettled(file: string): string[] {
  try {
    const list = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    markRead(file);
    return Array.isArray(list) ? list.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

export function writeSettled(file: string, versions: string[]): void {
  writeFileAtomic(file, JSON.stringify(versions));
}
