#!/usr/bin/env node
/**
 * The npm scripts that are a sequence of tools rather than one TypeScript file (npm test, typecheck,
 * postinstall), behind the same contract as the others: `--help` says what the task runs and exits 0 having run
 * nothing; otherwise each step runs in turn, the first failure's status is the task's, and the arguments after
 * `--` go to the last step (`npm test -- path` to vitest). Plain JavaScript: postinstall runs it before anything
 * is built, on whatever Node npm runs.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** A hang guard for every step, not a speed limit (npm ci over a slow link, a whole test run on a busy machine). */
const STEP_TIMEOUT_MS = 60 * 60_000;
const NODE = process.execPath;

/** @type {Record<string, { help: string; steps: [string, string[]][] }>} */
const TASKS = {
  test: {
    help: `Runs the static checks side by side (format, types and lint, the repository's own gate:
test-support/static-checks.mjs), then every test (vitest run). Arguments after -- go to vitest
(npm test -- policy-tests/test/gate). CI=true makes a test that would skip for a missing tool fail.`,
    steps: [
      [NODE, ['test-support/static-checks.mjs']],
      [NODE, ['node_modules/vitest/vitest.mjs', 'run']],
    ],
  },
  typecheck: {
    help: `Type-checks the repository (tsconfig.json) and the watchdog (monitoring/watchdog) with tsc --noEmit.`,
    steps: [
      [NODE, ['node_modules/typescript-native/bin/tsc', '--noEmit', '-p', '.']],
      [NODE, ['node_modules/typescript-native/bin/tsc', '--noEmit', '-p', 'monitoring/watchdog']],
    ],
  },
  postinstall: {
    help: `npm ci's last step: installs the render tools' and Renovate's own npm projects (tools/render,
tools/renovate, from their lockfiles), then makes what the gate derives from the install (npm run gate:setup).`,
    steps: [
      ['npm', ['ci', '--prefix', 'tools/render', '--omit=peer', '--no-audit', '--no-fund', '--loglevel=error']],
      ['npm', ['ci', '--prefix', 'tools/renovate', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error']],
      [NODE, ['scripts/postinstall.mjs']],
    ],
  },
};

/** @param {[string, string[]]} step */
function runStep([command, args]) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit', timeout: STEP_TIMEOUT_MS, killSignal: 'SIGKILL' });
    child.on('error', (err) => {
      process.stderr.write(`${command}: ${err.message}\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const [name = '', ...rest] = process.argv.slice(2);
const task = TASKS[name];
if (!task) {
  process.stderr.write(`task.mjs: unknown task "${name ?? ''}"; one of ${Object.keys(TASKS).join(', ')}\n`);
  process.exit(2);
}
if (rest.includes('--help') || rest.includes('-h')) {
  process.stdout.write(`usage: npm run ${name}${name === 'test' ? ' [-- vitest arguments]' : ''}\n\n${task.help}\n`);
  process.exit(0);
}
if (name !== 'test' && rest.length > 0) {
  process.stderr.write(`${name}: unexpected argument "${rest[0]}" (usage: npm run ${name})\n`);
  process.exit(2);
}
for (const [i, step] of task.steps.entries()) {
  const last = i === task.steps.length - 1;
  const status = await runStep(last ? [step[0], [...step[1], ...rest]] : step);
  if (status !== 0) process.exit(status);
}
