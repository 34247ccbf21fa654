/**
 * Whether a remote kustomize base's host resolves at all, asked before
 * kustomize is started to fetch it. Offline (CI, a laptop on a plane) kubectl
 * tries HTTP, then git, and fails after four processes and about a quarter of
 * a second; a name that does not resolve fails the same way in a few
 * milliseconds. Only a clear answer counts: behind a proxy the proxy resolves
 * the name, so nothing is asked; a lookup that takes longer than a moment
 * leaves the fetch to kustomize, as before.
 */
import { lookup } from 'node:dns/promises';
import { setTimeout as after } from 'node:timers/promises';

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'] as const;
/** How long a lookup may take before the question is left to kustomize: not a limit on anything, a shortcut not taken. */
const PATIENCE_MS = 1500;

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname || undefined;
  } catch {
    return undefined; // a git-style locator (github.com/org/repo//dir?ref=): left to kustomize
  }
}

/** Why one of these URLs cannot be fetched from here, in the words kustomize would use; undefined when that is not known. */
export async function unresolvable(
  urls: readonly string[],
  env: NodeJS.ProcessEnv,
  resolve: (host: string) => Promise<unknown> = lookup,
  patienceMs = PATIENCE_MS,
): Promise<string | undefined> {
  if (PROXY_VARIABLES.some((k) => env[k])) return undefined;
  for (const host of new Set(urls.map(hostOf).filter((h): h is string => h !== undefined))) {
    const outcome = await Promise.race([
      resolve(host).then(
        () => 'resolves',
        (err: NodeJS.ErrnoException) => err.code ?? 'unknown',
      ),
      after(patienceMs, 'slow', { ref: false }),
    ]);
    // Worded as kubectl words it, so the render tier reads both alike.
    if (outcome === 'ENOTFOUND') return `dial tcp: lookup ${host}: no such host`;
    if (outcome === 'EAI_AGAIN') return `dial tcp: lookup ${host}: temporary failure in name resolution`;
  }
  return undefined;
}
