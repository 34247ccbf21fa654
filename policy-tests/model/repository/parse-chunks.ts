/**
 * The parse pool's one shared counter (parse-pool.ts): the main thread and each worker take the next chunk of files
 * from it, so the faster one parses more. Its own module, so that a worker loads nothing of the pool.
 */

/** The next chunk to parse, from the counter the main thread and the workers share; undefined when none is left. */
export function nextChunk<T>(chunks: readonly T[], counter: Int32Array): T | undefined {
  const i = Atomics.add(counter, 0, 1);
  return i < chunks.length ? chunks[i] : undefined;
}
