#!/usr/bin/env node
// Contract fake of etcdutl (v3.6 CLI) for the two commands the etcd engine
// runs on a snapshot file: `etcdutl snapshot status <file> -w json` and
// `etcdutl snapshot restore <file> --data-dir ... --name ... --initial-cluster
// ... --initial-advertise-peer-urls ...`. etcd 3.6 cannot run here (Debian 12
// ships 3.4, which has no etcdutl); etcd 3.4's etcdctl takes the same commands
// with the same flags and prints the same JSON fields, so the real etcdctl does
// the work on the real file. It does not invent the `version` field 3.6 adds
// to the status (the snapshot's storage version), which 3.4 cannot read. Each
// command is appended to FAKE_ETCDUTL_LOG when that is set. Anything else exits
// 1 as etcdutl does on unknown usage.
import { appendFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const [group, command, file] = args;
if (group !== 'snapshot' || !['status', 'restore'].includes(command ?? '') || !file) {
  process.stderr.write(`Error: unknown command "${args.join(' ')}" for "etcdutl"\n`);
  process.exit(1);
}
if (process.env.FAKE_ETCDUTL_LOG) appendFileSync(process.env.FAKE_ETCDUTL_LOG, `snapshot ${command}\n`);
const done = spawnSync('etcdctl', args, { env: { ...process.env, ETCDCTL_API: '3' }, stdio: ['ignore', 'inherit', 'inherit'], timeout: 600_000 });
process.exit(done.status ?? 1);
