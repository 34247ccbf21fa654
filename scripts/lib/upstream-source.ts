/**
 * One file of an upstream project at a tag: from a local clone (`git show`), or from GitHub's raw file host. Both
 * with a timeout; each failure is one line naming the file, the ref and the cause.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const FETCH_TIMEOUT_MS = 30_000;
const GIT_TIMEOUT_MS = 60_000;

export async function readUpstreamFile(repository: string, { ref, file }: { ref: string; file: string }, from?: string): Promise<string> {
  if (from) {
    try {
      const { stdout } = await promisify(execFile)('git', ['-C', from, 'show', `${ref}:${file}`], { timeout: GIT_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 });
      return stdout;
    } catch (err) {
      throw new Error(
        `cannot read ${file} at ${ref} from ${from}: ${
          String((err as { stderr?: string }).stderr ?? err)
            .trim()
            .split('\n')[0]
        }`,
      );
    }
  }
  const match = /^https:\/\/github\.com\/([^/]+)\/([^/]+?)(?:\.git)?$/.exec(repository);
  if (!match) throw new Error(`${repository} is not a GitHub repository; read it with --from <local clone>`);
  const url = `https://raw.githubusercontent.com/${match[1]}/${match[2]}/${encodeURIComponent(ref)}/${file.split('/').map(encodeURIComponent).join('/')}`;
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (err) {
    throw new Error(
      `offline or unreachable: cannot fetch ${file} at ${ref} (${(err as Error).name === 'TimeoutError' ? 'timed out' : (err as Error).message}); read it with --from <local clone>`,
    );
  }
  if (!response.ok) throw new Error(`${file} at ${ref}: HTTP ${response.status}`);
  return response.text();
}

/** Where `text` is in the files under `dir` (git pathspecs) at `ref`: `git grep -F` with `mode` (`-h` lines, `-l` files). */
async function gitGrep(mode: '-h' | '-l', from: string, ref: string, { text, dir }: { text: string; dir: string | readonly string[] }): Promise<string[]> {
  try {
    const { stdout } = await promisify(execFile)('git', ['-C', from, 'grep', mode, '-F', '-e', text, ref, '--', ...(typeof dir === 'string' ? [dir] : dir)], {
      timeout: GIT_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout.split('\n').filter((line) => line !== '');
  } catch (err) {
    // git grep exits 1 when no line matches: that is an empty answer, not a failure.
    if ((err as { code?: number }).code === 1 && !(err as { stderr?: string }).stderr) return [];
    throw new Error(
      `cannot search ${String(dir)} at ${ref} in ${from}: ${
        String((err as { stderr?: string }).stderr ?? err)
          .trim()
          .split('\n')[0]
      }`,
    );
  }
}

/** Every line of the files under `dir` (git pathspecs: `:!vendor` leaves a folder out) at `ref` in a local clone that holds `text`, without file names. */
export const grepUpstream = (from: string, ref: string, text: string, dir: string | readonly string[]): Promise<string[]> =>
  gitGrep('-h', from, ref, { text, dir });

/** The paths of the files under `dir` at `ref` in a local clone that hold `text`. */
export async function filesHolding(from: string, ref: string, text: string, dir: string | readonly string[]): Promise<string[]> {
  return (await gitGrep('-l', from, ref, { text, dir })).map((f) => f.slice(ref.length + 1));
}
