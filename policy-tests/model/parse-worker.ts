/** Worker thread body: parses a share of the manifest files (see parse-pool.ts). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { parseManifest } from './manifest.ts';
import type { WorkerFile } from './parse-pool.ts';

const { root, files } = workerData as { root: string; files: string[] };
const parsed: WorkerFile[] = files.map((file) => {
  const text = readFileSync(join(root, file), 'utf8');
  const { resources, findings } = parseManifest(file, text);
  // Documents cannot cross threads; positions are recomputed on demand from the text.
  return { file, text, findings, resources: resources.map(({ positions: _positions, ...rest }) => rest) };
});
parentPort!.postMessage(parsed);
