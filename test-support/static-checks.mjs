#!/usr/bin/env node
/**
 * npm test's static checks, side by side: the type check with lint, the format
 * check and the repository's own gate. Side by side on two cores they take
 * about the time of the longest (the typed lint, about 2-3 s here; the gate
 * takes about 2 s on a clean clone once npm ci has run gate:setup) instead of
 * their sum. Silent when all pass, as each tool is;
 * otherwise prints what each failing one said, under its name, and exits 1.
 * A check that hangs is killed at the same ten-minute guard as the tests.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const HANG_GUARD_MS = 10 * 60_000;
/**
 * Type check and lint in one program: oxlint hands the typed rules to tsgolint, which builds each tsconfig's
 * program with TypeScript 7's checker (typescript-go) for them anyway, and `--type-check` has it report that
 * program's compiler diagnostics too: both tsconfigs (the repository's and the watchdog's), with the same
 * options `tsc --noEmit` reads. A second full check by `tsc` cost 2.5-3 CPU-seconds of this step; `npm run
 * typecheck` still runs `tsc` itself.
 */
/** @type {readonly (readonly [string, string, string[], Record<string, string>?])[]} */
const CHECKS = [
  ['format', 'oxfmt', ['--check']],
  // Go's collector off up to a gigabyte for tsgolint (TypeScript 7 is Go): the check peaks near 450 MB, and
  // collecting as it builds the programs cost a fifth of its CPU (2.9 to 2.3 CPU-seconds, 1.6 to 1.2 s here).
  ['types and lint', 'oxlint', ['--type-aware', '--type-check'], { GOGC: 'off', GOMEMLIMIT: '1GiB' }],
  // The repository against its own gate, offline (what is not cached is reported as not rendered, not failed). It
  // runs here, beside the checks above, for a second reason: it builds the gate's bundle and fills its warm-start
  // stores (model/stores/outcome-store.ts), so the test workers that start next find both ready instead of each building
  // them at once (on a clean clone that was about 10 CPU-seconds of the suite).
  ['the gate', process.execPath, [fileURLToPath(new URL('../policy-tests/bin/homelab-gate.mjs', import.meta.url))]],
];

/**
 * Runs one check to its end; resolves with what it printed when it failed, or undefined.
 * @param {readonly [string, string, string[], Record<string, string>?]} check
 * @returns {Promise<string | undefined>}
 */
function check([name, command, args, tuning = {}]) {
  return new Promise((resolve) => {
    // The caller's own settings win over the tuning.
    const env = { ...tuning, ...process.env };
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: HANG_GUARD_MS, killSignal: 'SIGKILL' });
    let said = '';
    child.stdout.on('data', (chunk) => (said += chunk));
    child.stderr.on('data', (chunk) => (said += chunk));
    child.on('error', (err) => resolve(`${name} (${command}): could not start: ${err.message}`));
    child.on('close', (code, signal) => {
      if (code === 0) return resolve(undefined);
      const why = signal ? `killed (${signal}${signal === 'SIGKILL' ? `, past the ${HANG_GUARD_MS / 60_000}-minute guard` : ''})` : `exit ${code}`;
      resolve(`${name} (${command} ${args.join(' ')}): ${why}\n${said.trimEnd()}`);
    });
  });
}

const failures = (await Promise.all(CHECKS.map(check))).filter(Boolean);
for (const failure of failures) process.stderr.write(`${failure}\n\n`);
process.exit(failures.length ? 1 : 0);
