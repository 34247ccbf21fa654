/**
 * npm run charts:pull: `helm pull` every chart the Applications pin into the
 * cache outside git, so the gate can render them offline. The committed
 * charts.lock.json records each archive's digest on first pull; a later pull
 * whose archive differs under the same version is refused (a chart
 * repository that re-publishes a version, or a tampered proxy) until a
 * person reviews it and runs with --update-lock.
 */
import { writeInCheckout } from './lib/checkout-write.ts';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadRepo, REPO_ROOT, charts } from '../policy-tests/index.ts';
import { runCommand, UsageError, type CommandIo } from './lib/command.ts';

export type PullOptions = charts.PullOptions & { env: NodeJS.ProcessEnv; prune?: boolean };

/**
 * Pulls what is missing into the cache and writes the lock (unless frozen or unchanged), then, with `prune`, takes
 * out of the cache what the lock in the checkout does not pin; returns the number of charts and remotes refused or
 * not pulled.
 */
export async function pullCharts(o: PullOptions): Promise<number> {
  const cache = charts.chartCache(o.env);
  const { lock, refused } = await cache.pull(await loadRepo(o.root), o);
  const path = join(o.root, charts.CHART_LOCK_FILE);
  if (!o.frozen && (!existsSync(path) || readFileSync(path, 'utf8') !== lock)) writeInCheckout(o.root, charts.CHART_LOCK_FILE, lock);
  if (o.prune) {
    const { removed, unread, retired, bytes } = cache.prune(o.root);
    for (const item of removed) o.out(`pruned   ${item}`);
    for (const { folder, entries, why } of retired) o.out(`pruned   ${folder}/: ${entries} ${entries === 1 ? 'entry' : 'entries'}, ${why}`);
    for (const { folder, entries } of unread)
      if (entries) o.out(`pruned   ${folder}/: ${entries} ${entries === 1 ? 'entry' : 'entries'} no run read for ${charts.UNREAD_DAYS} days`);
    const count = removed.length + [...retired, ...unread].reduce((sum, u) => sum + u.entries, 0);
    o.out(`pruned   ${count} ${count === 1 ? 'item' : 'items'} in all, ${(bytes / 1024 / 1024).toFixed(1)} MiB`);
  }
  return refused;
}

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, io?: CommandIo): Promise<number> {
  const out = (line: string) => (io ? io.stdout(`${line}\n`) : process.stdout.write(`${line}\n`));
  return runCommand(
    {
      name: 'charts:pull',
      usage: 'charts:pull [--mirror URL] [--update-lock | --frozen | --verify-index] [--prune]',
      help: `Pulls every chart the Applications pin (helm pull) into the cache outside git
(${charts.chartCache(env).dir}), so npm run validate renders them offline.
${charts.CHART_LOCK_FILE} records each archive's digest on first pull; a later archive
with another digest is refused.

  --mirror URL     pull every chart by name and version from this one chart
                   repository (http(s) or oci://) instead of each repoURL
  --update-lock    re-record the digests (after reviewing the change)
  --frozen         refuse every chart the lock does not record, and never
                   write the lock: so a chart version nobody reviewed is
                   never rendered or trusted
  --verify-index   as --frozen for every chart the lock records; a version
                   it lacks (an update bot's bump) is pulled and recorded
                   only if its sha256 is the digest its chart repository
                   publishes in index.yaml: what CI runs on a pull request
  --prune          then remove from the cache every chart archive and
                   unpacking the lock does not pin (old versions, charts no
                   Application pins, what an older gate unpacked), and
                   every render no run has read for ${charts.UNREAD_DAYS} days; another
                   checkout sharing the cache pulls its own again

Environment: HELM_BIN (your own Helm 4), HOMELAB_CACHE_DIR (the cache folder),
HOMELAB_CHART_CACHE (the charts alone), HTTPS_PROXY, HTTP_PROXY, NO_PROXY,
SSL_CERT_FILE and SSL_CERT_DIR (reach Helm and the remote-base fetch).
Exit status: 0 every chart cached, 1 a chart refused or a pull failed (the others are
still pulled and locked), 2 a usage error.`,
      options: {
        mirror: { type: 'string' },
        'update-lock': { type: 'boolean', default: false },
        frozen: { type: 'boolean', default: false },
        'verify-index': { type: 'boolean', default: false },
        prune: { type: 'boolean', default: false },
      },
      positionals: { min: 0, max: 0 },
      async run({ values }) {
        const modes = ['frozen', 'update-lock', 'verify-index'].filter((m) => values[m] === true);
        if (modes.length > 1) throw new UsageError(`--${modes[0]} and --${modes[1]} contradict each other`);
        const refused = await pullCharts({
          root: env.HOMELAB_REPO_ROOT ?? REPO_ROOT,
          env,
          mirror: values.mirror as string | undefined,
          updateLock: values['update-lock'] === true,
          frozen: values.frozen === true,
          verifyIndex: values['verify-index'] === true,
          prune: values.prune === true,
          out,
        });
        return refused ? 1 : 0;
      },
    },
    argv,
    io,
  );
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await main(process.argv.slice(2), process.env);
