/** Worker thread body: parses chunks of the manifest files, taken in turn with the main thread (see parse-pool.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { parseSource, readSource } from '../core/source.ts';
import type { WorkerFile } from './parse-pool.ts';
import { nextChunk } from './parse-chunks.ts';
import type { PlaceTable } from '../yaml/place-table.ts';

const { root, chunks, counter } = workerData as { root: string; chunks: string[][]; counter: Int32Array };

function parseOne(file: string): WorkerFile {
  const source = readSource(root, file);
  const text = 'text' in source ? source.text : '';
  const { resources, findings } = parseSource(file, source);
  // Documents cannot cross threads: each one's places go as a table (model/yaml/place-table.ts), so a finding on the
  // main thread has its line without parsing the file again.
  const places: Record<number, PlaceTable> = {};
  for (const r of resources) if (!(r.doc in places) && r.positions.table) places[r.doc] = r.positions.table();
  return { file, text, findings, places, resources: resources.map(({ positions: _positions, ...rest }) => rest) };
}

// Chunks taken from the counter shared with the main thread and the other workers, until none is left.
const parsed: WorkerFile[] = [];
for (let chunk = nextChunk(chunks, counter); chunk; chunk = nextChunk(chunks, counter)) parsed.push(...chunk.map(parseOne));
parentPort!.postMessage(parsed);
