/** One check's findings on a repository: what a test of a check holds a run to. */
import { allFindings, runGate } from '../policy-tests/gate/gate.ts';

type Where = { root: string; env: NodeJS.ProcessEnv };

/** One check's findings, whole (their fix and severity too). */
export async function checkFindingObjects(check: string, { root, env }: Where) {
  return allFindings(await runGate({ root, cwd: root, env })).filter((f) => f.check === check);
}

/** One check's findings as `file:line message` lines. */
export async function checkFindings(check: string, where: Where): Promise<string[]> {
  return (await checkFindingObjects(check, where)).map((f) => `${f.file}:${f.line} ${f.message}`);
}
