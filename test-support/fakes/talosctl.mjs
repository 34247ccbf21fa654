#!/usr/bin/env node
// Contract fake of talosctl (v1.x CLI) for the one command the etcd engine
// runs: `talosctl -n <node> etcd snapshot <path>`, which streams a snapshot of
// the node's etcd to <path>. Talos cannot run here; the snapshot comes from a
// real etcd (FAKE_ETCD_ENDPOINT) through etcdctl, so the bytes are a genuine
// etcd snapshot. Anything else exits 1 as talosctl does on unknown usage.
import { execFileSync } from 'node:child_process';

const args = process.argv.slice(2);
const node = args[0] === '-n' || args[0] === '--nodes' ? args.splice(0, 2)[1] : undefined;
if (!node) {
  process.stderr.write(
    'error: nodes are not set for the command: please use `--nodes` flag or configuration file to set the nodes to run the command against\n',
  );
  process.exit(1);
}
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
