/** Worker thread body: parses a share of the manifest files (see parse-pool.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { parseSource, readSource } from '../core/source.ts';
import type { WorkerFile } from './parse-pool.ts';

const { root, files } = workerData as { root: string; files: string[] };
const parsed: WorkerFile[] = files.map((file) => {
  const source = readSource(root, file);
  const text = 'text' in source ? source.text : '';
  const { resources, findings } = parseSource(file, source);
  // Documents cannot cross threads; positions are recomputed on demand from the text.
  return { file, text, findings, resources: resources.map(({ positions: _positions, ...rest }) => rest) };
});
parentPort!.postMessage(parsed);
