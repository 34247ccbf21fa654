/**
 * Where everything the gate keeps between runs lives: outside the checkout,
 * so nothing a pull request commits is read as the gate's own state.
 * HOMELAB_CACHE_DIR, else $XDG_CACHE_HOME/homelab-gitops, else
 * ~/.cache/homelab-gitops.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.HOMELAB_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'homelab-gitops');
}
