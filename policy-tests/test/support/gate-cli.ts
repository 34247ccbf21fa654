/**
 * The gate's CLI as the tests run it (gate/cli*.test.ts): through its built bin in a process of its own, or through
 * the same front door in the test's process, each offline; and a Deployment with a typo the schema layer refuses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { main } from '../../gate/cli.ts';
import { REPO_ROOT } from '../../model/repository/repo.ts';
import { exec } from '../../../test-support/exec.ts';

export const typoDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: outside
spec:
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: x}}
    spec:
      containers:
        - name: x
          image: nginx:latest
          securityContext:
            capabilites: {}
`;

/** Registers the file's scratch folder (removed after the file) and returns the two ways to run the gate in it. */
export function useGateCli() {
  const scratch = mkdtempSync(join(tmpdir(), 'gate-cli-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  /** An empty chart cache: the gate runs as on a machine that never pulled the charts, whatever this one has cached. */
  const offline = { ...process.env, HOMELAB_CHART_CACHE: join(scratch, 'no-charts') };

  /**
   * The built gate, through its bin, as `npx homelab-gate` runs it: for what only a process shows (its exit
   * status, what reaches stdout and stderr, standard input read from file descriptor 0, the bundle's start).
   */
  function validate(args: string[], input?: string) {
    return exec(process.execPath, [join(REPO_ROOT, 'policy-tests/bin/homelab-gate.mjs'), ...args], { cwd: REPO_ROOT, input, env: offline });
  }

  /**
   * The same front door (cli.ts main, which the bin calls with the process's own streams) in this process: for
   * the formats, flags and reports, which need no new process each (a process cost half a CPU-second to start).
   */
  async function inProcess(args: string[], input?: string, o: { env?: NodeJS.ProcessEnv; tty?: boolean } = {}) {
    let stdout = '';
    let stderr = '';
    const code = await main(args, {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      env: o.env ?? offline,
      stdoutIsTTY: o.tty ?? false,
      stderrIsTTY: false,
      cwd: REPO_ROOT,
      ...(input === undefined ? {} : { stdin: () => input }),
    });
    return { code, stdout, stderr };
  }
  return { scratch, offline, validate, inProcess };
}
