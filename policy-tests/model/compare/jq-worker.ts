/**
 * Worker thread body for jq.ts: runs one jq program at a time with jq's own engine (jq 1.7.1 built to WebAssembly,
 * jq-wasm) and posts what it printed, or its error. A program that never ends blocks this thread only: the main
 * thread stops it at its deadline.
 */
import { readlinkSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { raw } from 'jq-wasm';

interface Job {
  program: string;
  input: string;
}

/** This thread's name in /proc, for the main thread to read the CPU time it spends on each program (cpu-deadline.ts). */
function ownTask(): string | undefined {
  try {
    return readlinkSync('/proc/thread-self');
  } catch {
    return undefined;
  }
}

// jq loads its WebAssembly once; the main thread times each program from this message on, not the load.
raw('null', '.').then(
  () => parentPort!.postMessage({ ready: true, task: ownTask() }),
  (err: Error) => parentPort!.postMessage({ failed: err.message }),
);

parentPort!.on('message', (job: Job) => {
  raw(job.input, job.program, ['-c']).then(
    (output) => parentPort!.postMessage({ output }),
    (err: Error) => parentPort!.postMessage({ error: err.message }),
  );
});
