/**
 * The jq path expressions of Argo CD's ignoreDifferences, run by jq's own engine (jq 1.7.1 built to WebAssembly:
 * jq-wasm). Argo CD runs them with gojq, a Go implementation of the same language, as `del(<expression>)` on each
 * object it compares, and stops one at 1 s (util/argo/normalizers/diff_normalizer.go at v3.5.1,
 * DefaultJQExecutionTimeout). Here each runs as `[path(<expression>)]`, which lists the very fields `del` removes, in a
 * worker thread that is stopped once it has spent its second on a CPU (cpu-deadline.ts: on a machine shared with other
 * work, a second of the clock is less than a second of jq): a pull request writes these expressions, and one that
 * never ends costs a run a second or so of CPU, never the run. jq's file system is the engine's own, in memory: `include` and `import` find
 * nothing, as gojq's compiler, which Argo CD gives no module loader, finds nothing.
 */
import { isDeepStrictEqual } from 'node:util';
import { Worker } from 'node:worker_threads';
import { startCpuDeadline, threadCpuMs } from './cpu-deadline.ts';

/** Argo CD's bound on one jq expression's run (DefaultJQExecutionTimeout). */
export const JQ_TIMEOUT_MS = 1000;
/** How long the worker may take to load jq's WebAssembly before the run gives up on jq (a loaded machine is slow). */
const START_TIMEOUT_MS = 60_000;
/** The clock's bound on a program, in its CPU budgets: one that never ends stops here though the machine starves it. */
const WALL_CAP_BUDGETS = 20;
/** /proc's name of a thread: "<pid>/task/<tid>". */
const TASK = /^\d+\/task\/\d+$/;

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
  /** The worker's thread in /proc, to read the CPU time a program spends; undefined off Linux, where the clock times it. */
  private task?: string;

  private start(): Promise<void> {
    const worker = new Worker(new URL('./jq-worker-entry.mjs', import.meta.url));
    this.worker = worker;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`jq did not load in ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
      worker.once('message', (m: { ready?: boolean; failed?: string; task?: string }) => {
        clearTimeout(timer);
        this.task = m.task && TASK.test(m.task) ? m.task : undefined;
        if (m.ready) resolve();
        else reject(new Error(`jq did not load: ${m.failed}`));
      });
      worker.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  async run(program: string, input: string, timeoutMs = JQ_TIMEOUT_MS): Promise<Reply | 'timeout'> {
    await (this.started ??= this.start());
    const worker = this.worker!;
    const task = this.task;
    return new Promise((resolve, reject) => {
      const settle = () => {
        cancel();
        worker.off('message', onMessage).off('error', onError);
      };
      const cancel = startCpuDeadline({
        budgetMs: timeoutMs,
        wallCapMs: timeoutMs * WALL_CAP_BUDGETS,
        cpuMs: () => (task ? threadCpuMs(task) : undefined),
        onExpire: () => {
          settle();
          // The only way to stop a WebAssembly loop is to stop its thread; the next program starts another.
          this.stop();
          resolve('timeout');
        },
      });
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
    this.task = undefined;
  }
}

/** jq's messages end with its count of compile errors ("jq: 1 compile error"). */
const isCompileError = (message: string) => /\bcompile errors?\b/.test(message);
/** jq's message without the wrapper's prefixes and its trailing count, on one line. */
const jqMessage = (message: string) =>
  message
    .replace(/^(Failed to execute raw query: )+/, '')
    .replace(/\s*jq: \d+ compile errors?\s*$/, '')
    // jq's hint for a command line, and the `empty | ` that keeps a compile from running: neither is Argo CD's.
    .replace(/\s+/g, ' ')
    .replace(' (Unix shell quoting issues?)', '')
    .replace(/(line \d+: )empty \| /, '$1')
    .trim();

const seconds = `${JQ_TIMEOUT_MS / 1000} s`;
const lines = (output: string) => output.split('\n').filter(Boolean);
/** A batch runs each object in turn: its bound grows with them, so only an expression that never ends reaches it. */
const batchTimeout = (objects: number) => JQ_TIMEOUT_MS + objects * 5;

/** A program not run because jq already overran its bound this many times in the run: a pull request could write many. */
const MAX_OVERRUNS = 3;
const NOT_RUN = `not run: ${MAX_OVERRUNS} jq programs before it did not end`;
const NOT_ONE = 'does not read as one expression';

type Ask = (program: string, json: string, timeoutMs?: number) => Promise<Reply | 'timeout' | 'skipped'>;

/** What a program that did not end, or was not run, leaves of an answer. */
const unanswered = (ran: 'timeout' | 'skipped', timedOut: string): JqAnswer => ({ unanswered: ran === 'timeout' ? timedOut : NOT_RUN });

/**
 * Whether Argo CD can use the expression at all: its own program, `del(<expression>)`, must compile (`empty | …` runs
 * nothing of it), and the expression must stand as one expression alone, so that inside `path(…)` here and `del(…)`
 * there it is the same expression (one that closes the parenthesis around it and goes on would not be). jq and gojq
 * both define `del(f)` as `delpaths([path(f)])`, so the paths `[path(<expression>)]` lists are what Argo CD deletes.
 */
async function unusable(ask: Ask, expression: string): Promise<JqAnswer | undefined> {
  const argo = await ask(`empty | del(${expression})`, 'null');
  if (argo === 'timeout' || argo === 'skipped') return unanswered(argo, `did not compile in ${seconds}`);
  if ('error' in argo) return isCompileError(argo.error) ? { compileError: jqMessage(argo.error) } : { unanswered: jqMessage(argo.error) };
  const alone = await ask(`empty | ${expression}`, 'null');
  if (alone === 'skipped') return unanswered(alone, '');
  if (alone === 'timeout' || 'error' in alone) return { unanswered: NOT_ONE };
  return undefined;
}

/**
 * An expression that does not stand alone, run on one object as Argo CD runs it (jqNormalizerPatch.Apply): it fails,
 * gives other than one result, or deletes nothing, and Argo CD ignores nothing of the object for it; else what it
 * does has no paths to name.
 */
async function asArgoCd(ask: Ask, expression: string, input: unknown): Promise<JqAnswer> {
  const ran = await ask(`del(${expression})`, JSON.stringify(input));
  if (ran === 'timeout' || ran === 'skipped') return unanswered(ran, `did not end in ${seconds}`);
  if ('error' in ran) return { runError: jqMessage(ran.error) };
  const outputs = lines(ran.output);
  if (outputs.length !== 1) return { runError: `returned ${outputs.length} results where Argo CD takes one` };
  return isDeepStrictEqual(JSON.parse(outputs[0]!), input) ? { paths: [] } : { unanswered: NOT_ONE };
}

const isPaths = (v: unknown): v is unknown[][] => Array.isArray(v) && v.every(Array.isArray);

/** The paths one object's run names, or its error: Argo CD skips an expression that fails on an object. */
async function pathsOfOne(ask: Ask, expression: string, input: unknown): Promise<JqAnswer> {
  const ran = await ask(`[path(${expression})]`, JSON.stringify(input));
  if (ran === 'timeout' || ran === 'skipped') return unanswered(ran, `did not end in ${seconds}`);
  if ('error' in ran) return { runError: jqMessage(ran.error) };
  const paths: unknown = JSON.parse(lines(ran.output)[0] ?? 'null');
  return isPaths(paths) ? { paths } : { unanswered: 'names no list of paths' };
}

/**
 * The paths one expression names of each object, in one run of jq over all of them (each object's error caught
 * apart); object by object where that run fails as a whole (an expression that halts jq, say).
 */
async function pathsOfEach(ask: Ask, expression: string, inputs: readonly unknown[]): Promise<JqAnswer[]> {
  const ran = await ask(`map(try {paths: [path(${expression})]} catch {error: tostring})`, JSON.stringify(inputs), batchTimeout(inputs.length));
  if (ran === 'timeout' || ran === 'skipped') return inputs.map(() => unanswered(ran, `did not end in ${seconds}`));
  const each: unknown = 'output' in ran ? JSON.parse(lines(ran.output)[0] ?? 'null') : undefined;
  if (Array.isArray(each) && each.length === inputs.length)
    return each.map((r: { paths?: unknown; error?: unknown }) =>
      isPaths(r?.paths) ? { paths: r.paths } : { runError: typeof r?.error === 'string' ? r.error : 'failed' },
    );
  const out: JqAnswer[] = [];
  for (const input of inputs) out.push(await pathsOfOne(ask, expression, input));
  return out;
}

/** Answers each request, in request order: each expression compiled once, and run once over all its objects. */
export async function runJq(requests: readonly JqRequest[]): Promise<JqAnswer[]> {
  if (!requests.length) return [];
  const thread = new JqThread();
  let overruns = 0;
  const ask: Ask = async (program, json, timeoutMs) => {
    if (overruns >= MAX_OVERRUNS) return 'skipped';
    const ran = await thread.run(program, json, timeoutMs).catch((err: Error): Reply => ({ error: `jq could not run: ${err.message}` }));
    if (ran === 'timeout') overruns++;
    return ran;
  };
  const out: JqAnswer[] = new Array<JqAnswer>(requests.length);
  const byExpression = new Map<string, number[]>();
  requests.forEach((r, i) => byExpression.set(r.expression, [...(byExpression.get(r.expression) ?? []), i]));
  try {
    for (const [expression, indexes] of byExpression) {
      const problem = await unusable(ask, expression);
      const onObjects = indexes.filter((i) => requests[i]!.input !== undefined);
      if (problem && 'unanswered' in problem && problem.unanswered === NOT_ONE) {
        for (const i of indexes) out[i] = requests[i]!.input === undefined ? problem : await asArgoCd(ask, expression, requests[i]!.input);
        continue;
      }
      for (const i of indexes) if (problem || requests[i]!.input === undefined) out[i] = problem ?? { paths: [] };
      if (problem || !onObjects.length) continue;
      const answers = await pathsOfEach(
        ask,
        expression,
        onObjects.map((i) => requests[i]!.input),
      );
      onObjects.forEach((i, k) => (out[i] = answers[k]!));
    }
  } finally {
    thread.stop();
  }
  return out;
}
