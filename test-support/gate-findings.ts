/** One check's findings on a repository, as `file:line message` lines: what a test of a check holds a run to. */
import { allFindings, runGate } from '../policy-tests/gate/gate.ts';

export async function checkFindings(check: string, { root, env }: { root: string; env: NodeJS.ProcessEnv }): Promise<string[]> {
  return allFindings(await runGate({ root, cwd: root, env }))
    .filter((f) => f.check === check)
    .map((f) => `${f.file}:${f.line} ${f.message}`);
}
