#!/usr/bin/env node
// Contract fake of talosctl (v1.x CLI) for the one command the etcd engine
// runs: `talosctl -e <endpoint> -n <node> etcd snapshot <path>`, which streams
// a snapshot of the node's etcd to <path> through the endpoint. Talos cannot
// run here; the snapshot comes from a real etcd (FAKE_ETCD_ENDPOINT) through
// etcdctl, so the bytes are a genuine etcd snapshot. The endpoint it was told
// to connect to ("talosconfig" when none: the config's own list) is appended
// to FAKE_TALOS_ENDPOINTS_LOG when that is set. Anything else exits 1 as
// talosctl does on unknown usage.
import { appendFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const args = process.argv.slice(2);
/** The global flags, in any order before the command, as cobra reads them. */
const flags = new Map();
while (['-n', '--nodes', '-e', '--endpoints'].includes(args[0] ?? '')) {
  const [flag = '', value] = args.splice(0, 2);
  flags.set(flag.replace(/^--?/, '')[0], value);
}
const node = flags.get('n');
if (!node) {
  process.stderr.write(
    'error: nodes are not set for the command: please use `--nodes` flag or configuration file to set the nodes to run the command against\n',
  );
  process.exit(1);
}
if (process.env.FAKE_TALOS_ENDPOINTS_LOG) appendFileSync(process.env.FAKE_TALOS_ENDPOINTS_LOG, `${flags.get('e') ?? 'talosconfig'}\n`);
if (args[0] !== 'etcd' || args[1] !== 'snapshot' || args.length !== 3) {
  process.stderr.write(`Error: unknown command "${args.join(' ')}" for "talosctl"\n`);
  process.exit(1);
}
try {
  execFileSync('etcdctl', [`--endpoints=${process.env.FAKE_ETCD_ENDPOINT}`, 'snapshot', 'save', args[2] ?? ''], {
    env: { ...process.env, ETCDCTL_API: '3' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
} catch (err) {
  process.stderr.write(
    `error reading file: rpc error: code = Unavailable desc = ${String(/** @type {{ stderr?: unknown }} */ (err).stderr).trim().split('\n').pop()}\n`,
  );
  process.exit(1);
}
process.stdout.write(`etcd snapshot saved to "${args[2]}"\n`);
