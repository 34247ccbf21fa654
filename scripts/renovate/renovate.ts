/**
 * Renovate itself, run through zx: its config validator, and its extraction
 * (`--platform=local --dry-run=extract`), which reads a repository with the
 * repository's own config and reports every dependency each manager matched.
 * Both run offline. Renovate is pinned in its own npm project, tools/renovate/.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { run, runToEnd } from '../lib/exec.ts';

/** Where this repository keeps its Renovate config (one of the names Renovate looks for). */
export const RENOVATE_CONFIG_FILE = '.github/renovate.json5';

const BIN_DIR = new URL('../../tools/renovate/node_modules/.bin/', import.meta.url).pathname;
/** Renovate's package rules applied to dependencies by Renovate's own functions (groups.mjs says how). */
const GROUPS_SCRIPT = new URL('./groups.mjs', import.meta.url).pathname;
/** A hang guard for the group lookup, which resolves the built-in presets offline in a second or two. */
const GROUPS_TIMEOUT_MS = 10 * 60 * 1000;

/** One dependency a Renovate manager extracted. */
export interface ExtractedDep {
  /** The file it was found in, from the repository root. */
  file: string;
  manager: string;
  datasource?: string;
  depName?: string;
  currentValue?: string;
  currentDigest?: string;
  skipReason?: string;
}

function binary(name: string): string {
  const path = join(BIN_DIR, name);
  if (!existsSync(path)) throw new Error(`${name} is not installed: run npm ci (it installs tools/renovate/)`);
  return path;
}

/**
 * Renovate's environment: the caller's, less every RENOVATE_* setting (a
 * token or a config file of the operator's would change what is checked),
 * with RE2 off (it is a native module; tools/renovate installs without build
 * scripts, and Node's RegExp is what Renovate falls back to anyway).
 */
function renovateEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('RENOVATE_') && k !== 'LOG_LEVEL' && k !== 'LOG_FORMAT') env[k] = v;
  return { ...env, RENOVATE_X_IGNORE_RE2: 'true', LOG_LEVEL: 'warn', ...extra };
}

/** `renovate-config-validator --strict` on the repository at `root`: the problems it names, none when valid. */
export async function validateConfig(root: string): Promise<string[]> {
  if (!existsSync(join(root, RENOVATE_CONFIG_FILE))) return [`${RENOVATE_CONFIG_FILE}: no Renovate config`];
  const { exitCode, stdout, stderr } = await runToEnd(binary('renovate-config-validator'), ['--strict'], {
    cwd: root,
    env: renovateEnv({ LOG_LEVEL: 'info' }),
  });
  const out = `${stdout}\n${stderr}`;
  if (exitCode === 0 && /validated successfully/.test(out)) return [];
  // The validator prints each problem as a JSON "message" field; --strict adds the migration it wants.
  const messages = [...out.matchAll(/"message":\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string);
  if (/needs migrat/i.test(out)) messages.push('the config uses options Renovate has renamed (--strict wants it migrated)');
  const fallback =
    out
      .split('\n')
      .find((l) => /ERROR|WARN/.test(l))
      ?.trim() ?? `exited with status ${exitCode}`;
  return (messages.length ? messages : [fallback]).map((m) => `${RENOVATE_CONFIG_FILE}: ${m}`);
}

/** Renovate's own extraction of the repository at `root`, with its config: every dependency every manager matched. Stopped when `signal` aborts. */
export async function extractDeps(root: string, signal?: AbortSignal): Promise<ExtractedDep[]> {
  const scratch = await mkdtemp(join(tmpdir(), 'homelab-renovate-'));
  try {
    const report = join(scratch, 'report.json');
    await run(binary('renovate'), ['--platform=local', '--dry-run=extract', '--report-type=file', `--report-path=${report}`], {
      cwd: root,
      env: renovateEnv({ RENOVATE_BASE_DIR: join(scratch, 'base') }),
      signal,
    });
    if (!existsSync(report)) throw new Error('renovate: wrote no extraction report');
    return depsOfReport(JSON.parse(await readFile(report, 'utf8')));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** An update Renovate proposes: the release, its type, the branch it lands on, and whether it waits for approval or merges itself. */
export interface Proposal {
  version: string;
  updateType: string;
  branch: string;
  approval: boolean;
  automerge: boolean;
}

/** A dependency to ask Renovate about; with `releases`, what it would propose among them. */
export type Asked = ExtractedDep & { releases?: readonly string[] };

/** What groups.mjs reads on stdin for `deps`. */
function questionsInput(deps: readonly Asked[]): string {
  return JSON.stringify({
    deps: deps.map((d) => ({
      depName: d.depName,
      datasource: d.datasource,
      manager: d.manager,
      packageFile: d.file,
      ...(d.releases ? { currentValue: d.currentValue, releases: d.releases } : {}),
    })),
  });
}

/** groups.mjs's answers for `count` dependencies, from what it printed. */
function answersOf(out: string, count: number): Answer[] {
  const answers = JSON.parse(out.split('\n').at(-1) ?? '') as unknown;
  if (!Array.isArray(answers) || answers.length !== count) throw new Error('renovate: the group lookup answered no list of groups');
  return answers.map((a: { group?: unknown; rules?: unknown; proposals?: Proposal[] }) => ({
    ...(typeof a?.group === 'string' ? { group: a.group } : {}),
    rules: Array.isArray(a?.rules) ? a.rules.filter((r): r is string => typeof r === 'string') : [],
    ...(Array.isArray(a?.proposals) ? { proposals: a.proposals } : {}),
  }));
}

/** Renovate's answer for one dependency asked: the group its pull request belongs to (undefined: one of its own), and what it proposes when it was given releases. */
export interface Answer {
  group?: string;
  /** The names of the config file's own packageRules that take the dependency, each as `rule.key.place` (0.matchPackageNames.1). */
  rules: string[];
  proposals?: Proposal[];
}

/** A question for Renovate: the dependencies to ask it about, and what its answers for them (in order) mean. */
export interface Question<T> {
  asked: readonly Asked[];
  judge(answers: readonly Answer[]): T;
}

type Questions<T extends unknown[]> = { [K in keyof T]: Question<T[K]> };

/** Each question's meaning of its share of the answers, in order. */
function judged<T extends unknown[]>(questions: Questions<T>, answers: readonly Answer[]): T {
  let at = 0;
  return questions.map((q) => q.judge(answers.slice(at, (at += q.asked.length)))) as T;
}

/**
 * Several questions in one run of Renovate's functions (groups.mjs says how it answers offline): its start-up (the
 * config, its presets, the modules) is most of a run, so the checks share one.
 */
export async function ask<T extends unknown[]>(root: string, questions: Questions<T>): Promise<T> {
  if (questions.every((q) => q.asked.length === 0)) return judged(questions, []);
  return startAsking(root).ask(questions);
}

/** A run of Renovate's functions started before its questions are known. */
export interface Asking {
  /** Asks, once; the answers as `ask` gives them. */
  ask<T extends unknown[]>(questions: Questions<T>): Promise<T>;
  /** No questions will come: stops the run, and resolves once it has exited. */
  cancel(): Promise<void>;
}

/**
 * Starts Renovate's functions now, for questions that come later: its start-up (the modules, the lookup's among
 * them, the config and its presets: three seconds on the 2-core machine) runs while the caller extracts the
 * dependencies it will ask about, rather than after. The caller asks once or cancels.
 */
export function startAsking(root: string): Asking {
  const input = new PassThrough();
  const stop = new AbortController();
  const configFile = join(root, RENOVATE_CONFIG_FILE);
  const answered = run(process.execPath, [GROUPS_SCRIPT, configFile, '--questions-later'], {
    cwd: root,
    env: renovateEnv({}),
    input,
    timeoutMs: GROUPS_TIMEOUT_MS,
    signal: stop.signal,
  });
  // Awaited by ask or cancel; a run that fails before it is asked is reported by the ask.
  const exited = answered.then(
    () => undefined,
    () => undefined,
  );
  let asked = false;
  const cancel = async () => {
    stop.abort();
    input.end();
    await exited;
  };
  return {
    async ask<T extends unknown[]>(questions: Questions<T>): Promise<T> {
      if (asked) throw new Error('renovate: a started run of its functions is asked once');
      asked = true;
      const deps = questions.flatMap((q) => q.asked);
      if (deps.length === 0) {
        await cancel();
        return judged(questions, []);
      }
      input.end(questionsInput(deps));
      return judged(questions, answersOf(await answered, deps.length));
    },
    cancel,
  };
}

interface Report {
  repositories?: Record<string, { packageFiles?: Record<string, { packageFile: string; deps?: Omit<ExtractedDep, 'file' | 'manager'>[] }[]> }>;
}

/** The dependencies of a Renovate report (`--report-type=file`), flattened. */
export function depsOfReport(report: Report): ExtractedDep[] {
  const deps: ExtractedDep[] = [];
  for (const repo of Object.values(report.repositories ?? {})) {
    for (const [manager, files] of Object.entries(repo.packageFiles ?? {})) {
      for (const f of files)
        for (const d of f.deps ?? [])
          deps.push({
            file: f.packageFile,
            manager,
            datasource: d.datasource,
            depName: d.depName,
            currentValue: d.currentValue,
            currentDigest: d.currentDigest,
            skipReason: d.skipReason,
          });
    }
  }
  return deps;
}
