/**
 * The render cache: each render kept by its inputs under the cache root, so
 * an unchanged source costs nothing; a miss renders twice, to catch output
 * that changes between renders. Also a chart's interface, by digest, and the
 * API versions the last run settled at.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChartScope, Nondeterminism } from '../model/argocd/rendered.ts';
import { scalarText } from '../model/core/text.ts';
import { writeFileAtomic } from '../model/stores/write-atomic.ts';
import { chartScopeFromArchive } from './charts.ts';
import { hash, runTool, type Context, type Invocation } from './context.ts';
import { splitRendered, type RenderedDoc } from './output.ts';
import { cacheRoot } from './tools.ts';

function docKey(doc: RenderedDoc): string {
  const m = (doc.object.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  return `${scalarText(doc.object.apiVersion)}/${scalarText(doc.object.kind)}/${scalarText(m.namespace ?? '')}/${scalarText(m.name ?? '')}`;
}

/** Objects whose two renders differ (a randAlphaNum password, and the checksum it feeds). */
export function differences(first: string, second: string): Nondeterminism[] {
  if (first === second) return [];
  const a = splitRendered(first).docs;
  const b = new Map(splitRendered(second).docs.map((d) => [docKey(d), JSON.stringify(d.object)]));
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
}

/**
 * Cache entries already read in this process, by file. Rendered objects are
 * never mutated (like parsed files), so a second tree that renders the same
 * inputs (a diff's other ref, a watch loop) reads nothing from disk. Bounded.
 */
const readEntries = new Map<string, unknown>();

function readEntry<T>(file: string): T | undefined {
  const known = readEntries.get(file);
  if (known !== undefined) return known as T;
  if (!existsSync(file)) return undefined;
  try {
    const entry = JSON.parse(readFileSync(file, 'utf8')) as T;
    readEntries.set(file, entry);
    if (readEntries.size > 256) readEntries.delete(readEntries.keys().next().value!);
    return entry;
  } catch {
    return undefined; // A torn entry is made again.
  }
}

/** Runs an invocation through the render cache; a miss renders (twice, to catch nondeterminism). */
export async function cachedRun(ctx: Context, inv: Invocation, beforeRun?: () => Promise<void>): Promise<CachedRender> {
  const dir = join(cacheRoot(ctx.env), 'renders');
  const file = join(dir, `${hash(inv.key)}.json`);
  const cached = readEntry<CachedRender>(file);
  if (cached) return cached;
  await beforeRun?.();
  const first = await runTool(ctx, inv);
  // The determinism check renders twice. A later pass (the API versions grew) that prints, byte for byte, what this
  // source printed twice alike in an earlier pass has now printed it three times: the second run is not made again.
  const sourceKey = hash(inv.sourceKey);
  const earlier = ctx.earlier.get(sourceKey);
  const seenAlike = earlier?.deterministic === true && earlier.first === first;
  const nondeterministic = ctx.checkDeterminism && !seenAlike && !inv.pure ? differences(first, await runTool(ctx, inv)) : [];
  // The same text splits into the same objects: an earlier pass's are reused (that pass's renders are dropped for this one's).
  const split = earlier?.first === first ? earlier.split : splitRendered(first);
  ctx.earlier.set(sourceKey, { first, split, deterministic: nondeterministic.length === 0 });
  const { docs, problems } = split;
  const entry: CachedRender = { docs, nondeterministic, ...(problems.length ? { problem: problems[0]!.message } : {}) };
  writeFileAtomic(file, JSON.stringify(entry));
  return entry;
}

/** A chart's interface (defaults, templates, subcharts), read from its archive once per digest. */
export async function cachedScope(ctx: Context, archive: string, digest: string): Promise<ChartScope> {
  const file = join(cacheRoot(ctx.env), 'scopes', `${digest.replace(/^sha256:/, '')}.json`);
  type Stored = Omit<ChartScope, 'subcharts'> & { subcharts: [string, Stored][] };
  const revive = (s: Stored): ChartScope => ({ ...s, subcharts: new Map(s.subcharts.map(([k, v]) => [k, revive(v)])) });
  const store = (s: ChartScope): Stored => ({ ...s, subcharts: [...s.subcharts].map(([k, v]) => [k, store(v)]) });
  const stored = readEntry<Stored>(file);
  if (stored) return revive(stored);
  const scope = await chartScopeFromArchive(archive, ctx.limits.unpackedBytes);
  writeFileAtomic(file, JSON.stringify(store(scope)));
  return scope;
}

export function readSettled(file: string): string[] {
  try {
    const list = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return Array.isArray(list) ? list.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

export function writeSettled(file: string, versions: string[]): void {
  writeFileAtomic(file, JSON.stringify(versions));
}
