/**
 * The jq path expressions of Argo CD's ignoreDifferences, run by jq's own engine (jq 1.7.1 built to WebAssembly:
 * jq-wasm). Argo CD runs them with gojq, a Go implementation of the same language, as `del(<expression>)` on each
 * object it compares, and stops one at 1 s (util/argo/normalizers/diff_normalizer.go at v3.5.1,
 * DefaultJQExecutionTimeout). Here each runs as `[path(<expression>)]`, which lists the very fields `del` removes, in a
 * worker thread that is stopped at the same deadline: a pull request writes these expressions, and one that never
 * ends costs a run 1 s, never the run. jq's file system is the engine's own, in memory: `include` and `import` find
 * nothing, as gojq's compiler, which Argo CD gives no module loader, finds nothing.
 */
import { Worker } from 'node:worker_threads';

/** Argo CD's bound on one jq expression's run (DefaultJQExecutionTimeout). */
export const JQ_TIMEOUT_MS = 1000;
/** How long the worker may take to load jq's WebAssembly before the run gives up on jq (a loaded machine is slow). */
const START_TIMEOUT_MS = 60_000;

/** What one expression names of one object: the paths it deletes, or why it names none. */
export type JqAnswer =
  | { paths: unknown[][] }
  /** Argo CD cannot compile `del(<expression>)`: the Application's comparison fails, and no sync starts. */
  | { compileError: string }
  /** It fails on this object: Argo CD skips it there (it ignores nothing of the object). */
  | { runError: string }
  /** It did not end in 1 s (Argo CD, at its own deadline, skips it too), or jq could not run. */
  | { unanswered: string };

export interface JqRequest {
  expression: string;
  /** The object it runs on; undefined to compile it only. */
  input?: unknown;
}

type Reply = { output: string } | { error: string };

/** One worker thread running jq, started on first use and replaced when a program overruns. */
class JqThread {
  private worker?: Worker;
  private started?: Promise<void>;

  private start(): Promise<void> {
    const worker = new Worker(new URL('./jq-worker-entry.mjs', import.meta.url));
    this.worker = worker;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`jq did not load in ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
      worker.once('message', (m: { ready?: boolean; failed?: string }) => {
        clearTimeout(timer);
        if (m.ready) resolve();
        else reject(new Error(`jq did not load: ${m.failed}`));
      });
      worker.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  async run(program: string, input: string): Promise<Reply | 'timeout'> {
    await (this.started ??= this.start());
    const worker = this.worker!;
    return new Promise((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError);
      };
      const timer = setTimeout(() => {
        settle();
        // The only way to stop a WebAssembly loop is to stop its thread; the next program starts another.
        this.stop();
        resolve('timeout');
      }, JQ_TIMEOUT_MS);
      const onMessage = (reply: Reply) => {
        settle();
        resolve(reply);
      };
      const onError = (err: Error) => {
        settle();
        this.stop();
        reject(err);
      };
      worker.on('message', onMessage).on('error', onError);
      worker.postMessage({ program, input });
    });
  }

  stop(): void {
    void this.worker?.terminate();
    this.worker = undefined;
    this.started = undefined;
  }
}

/** jq's messages end with its count of compile errors ("jq: 1 compile error"). */
const isCompileError = (message: string) => /\bcompile errors?\b/.test(message);
/** jq's message without the wrapper's prefixes and its trailing count, on one line. */
const jqMessage = (message: string) =>
  message
    .replace(/^(Failed to execute raw query: )+/, '')
    .replace(/\s*jq: \d+ compile errors?\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim();

const seconds = `${JQ_TIMEOUT_MS / 1000} s`;
const lines = (output: string) => output.split('\n').filter(Boolean);

/**
 * What one expression names of one object. Argo CD's own program, `del(<expression>)`, runs first: its compile error
 * (on any input) or its failure here is Argo CD's. The fields it removes are then listed as `[path(<expression>)]`,
 * and taken only when deleting exactly them gives what Argo CD's program gave, so an expression that closes the
 * parenthesis around it and goes on never reads one way here and another in Argo CD.
 */
async function answer(thread: JqThread, { expression, input }: JqRequest): Promise<JqAnswer> {
  const ask = (program: string, json: string) =>
    thread.run(program, json).catch((err: Error): Reply | 'timeout' => ({ error: `jq could not run: ${err.message}` }));
  const json = input === undefined ? 'null' : JSON.stringify(input);
  const deleted = await ask(`del(${expression})`, json);
  if (deleted === 'timeout') return { unanswered: `did not end in ${seconds}` };
  if ('error' in deleted) {
    if (isCompileError(deleted.error)) return { compileError: jqMessage(deleted.error) };
    return input === undefined ? { paths: [] } : { runError: jqMessage(deleted.error) };
  }
  if (input === undefined) return { paths: [] };
  const outputs = lines(deleted.output);
  // Argo CD takes exactly one result (jqNormalizerPatch.Apply), and skips the patch otherwise.
  if (outputs.length !== 1) return { runError: `returned ${outputs.length} results where Argo CD takes one` };
  const listed = await ask(`[path(${expression})]`, json);
  if (listed === 'timeout') return { unanswered: `did not end in ${seconds}` };
  const paths = 'output' in listed ? JSON.parse(lines(listed.output)[0] ?? 'null') : undefined;
  if (!Array.isArray(paths) || !paths.every(Array.isArray)) return { unanswered: 'names no list of paths' };
  const check = await ask(`delpaths(${JSON.stringify(paths)})`, json);
  if (check === 'timeout' || !('output' in check) || check.output.trim() !== outputs[0]) return { unanswered: 'does not read as the fields it deletes' };
  return { paths: paths as unknown[][] };
}

/** Answers each request, in order, on one worker thread. */
export async function runJq(requests: readonly JqRequest[]): Promise<JqAnswer[]> {
  if (!requests.length) return [];
  const thread = new JqThread();
  const out: JqAnswer[] = [];
  try {
    for (const request of requests) out.push(await answer(thread, request));
  } finally {
    thread.stop();
  }
  return out;
}
