/** The process around the CLI: real streams, the exit status. Bundled to policy-tests/dist/homelab-gate.mjs. */
import { main } from './cli.ts';

const code = await main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  stdoutIsTTY: Boolean(process.stdout.isTTY),
  stderrIsTTY: Boolean(process.stderr.isTTY),
  cwd: process.cwd(),
});
// Let pending writes to a pipe drain before the exit.
process.exitCode = code;
