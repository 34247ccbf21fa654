/** Worker thread body: parses a share of the manifest files (see parse-pool.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { parseSource, readSource } from '../core/source.ts';
import type { WorkerFile } from './parse-pool.ts';
import type { PlaceTable } from '../yaml/place-table.ts';

const { root, files } = workerData as { root: string; files: string[] };
const parsed: WorkerFile[] = files.map((file) => {
  const source = readSource(root, file);
  const text = 'text' in source ? source.text : '';
  const { resources, findings } = parseSource(file, source);
  // Documents cannot cross threads: each one's places go as a table (model/yaml/place-table.ts), so a finding on the
  // main thread has its line without parsing the file again.
  const places: Record<number, PlaceTable> = {};
  for (const r of resources) if (!(r.doc in places) && r.positions.table) places[r.doc] = r.positions.table();
  return { file, text, findings, places, resources: resources.map(({ positions: _positions, ...rest }) => rest) };
});
parentPort!.postMessage(parsed);
