/**
 * The backup image's build step: the commands bundle into one file that plain
 * Node runs from the image's layout (the Dockerfile's COPY lines), and a
 * backup, its check and the drill work from that bundle with the real tools.
 * No Docker engine runs here, so the image itself is not built.
 */
import { exec, output } from '../../test-support/exec.ts';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../policy-tests/model/repository/repo.ts';
import { checkoutFacts, talosRunsEtcd, type ClusterFacts } from '../../policy-tests/model/repository/cluster-facts.ts';
import { TARGET_FILES } from '../../policy-tests/model/apps/backup-targets.ts';
import { missingTools, useResticRepository } from './backup-helpers.ts';
import { skipForMissing } from '../../test-support/missing-tool.ts';

const dockerfile = readFileSync(join(REPO_ROOT, 'scripts/backup/Dockerfile'), 'utf8');
const skip = skipForMissing(await missingTools('sqlite3', 'restic', 'zstd'), 'the backup image');
const resticEnv = useResticRepository(skip, ['sonarr']);

/**
 * The build stage as the Dockerfile lays it out: exactly the files its COPY
 * lines bring into /repo (read from the Dockerfile itself), with the
 * dependencies `npm ci` would install; then its RUN line's bundle, made there.
 * A file the commands import but the stage does not copy fails the bundle,
 * as it would fail `docker build`.
 */
async function bundleFromBuildStage(stage: string): Promise<string> {
  const build = dockerfile.slice(dockerfile.indexOf(' AS build'), dockerfile.indexOf('\nFROM ', dockerfile.indexOf(' AS build')));
  for (const [, args] of build.matchAll(/^COPY (?!--from)(.+)$/gm)) {
    const parts = args!.trim().split(/\s+/);
    const dest = parts.pop()!;
    for (const src of parts) {
      const to = dest.endsWith('/') ? join(stage, dest === './' ? '' : dest, src.endsWith('/') ? '' : basename(src)) : join(stage, dest);
      cpSync(join(REPO_ROOT, src), src.endsWith('/') ? join(stage, dest) : to, { recursive: true });
    }
  }
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(stage, 'node_modules'));
  const run = /^RUN node (scripts\/backup\/bundle\.ts) \/out$/m.exec(build);
  expect(run, 'the build stage bundles with scripts/backup/bundle.ts').not.toBeNull();
  const result = await exec(process.execPath, [join(stage, run![1]!), join(stage, 'out')], { cwd: stage });
  if (result.code !== 0) throw new Error(`the build stage's bundle fails: ${result.stderr.trim().split('\n').slice(0, 3).join(' ')}`);
  return join(stage, 'out', 'backup.mjs');
}

/** Why the Dockerfile's `etcd` stage is not the etcd minor the facts' Talos runs, or undefined when it is. */
function etcdMismatch(text: string, facts: ClusterFacts): string | undefined {
  const { minor, row } = talosRunsEtcd(facts);
  if (!row) return `the cluster facts' talosEtcd has no row for Talos ${minor}: add it from siderolabs/talos pkg/machinery/constants at its tag`;
  const image = /^FROM registry\.k8s\.io\/etcd:v?(\d+\.\d+)\.\d+(?:-\d+)? AS etcd$/m.exec(text)?.[1];
  const wanted = row.etcd.split('.').slice(0, 2).join('.');
  return image === wanted
    ? undefined
    : `Talos ${minor} runs etcd ${row.etcd} but scripts/backup/Dockerfile's etcd stage is ${image ?? 'none'}: move it to ${row.etcd}`;
}

/** The image's /app, laid out in a temp folder from the Dockerfile's COPY lines of repository files. */
let app: string;
let bundle: string;
beforeAll(async () => {
  app = mkdtempSync(join(tmpdir(), 'backup-image-'));
  bundle = await bundleFromBuildStage(join(app, '.build'));
  for (const [, from, to] of dockerfile.matchAll(/^COPY (?!--from)(\S+) \/app\/(\S+)$/gm)) {
    mkdirSync(dirname(join(app, to!)), { recursive: true });
    copyFileSync(join(REPO_ROOT, from!), join(app, to!));
  }
  copyFileSync(bundle, join(app, 'backup.mjs'));
});
afterAll(() => app && rmSync(app, { recursive: true, force: true }));

describe('backup image', () => {
  it('copies every targets file, pins talosctl and kubectl to the cluster facts, and installs the tools the engines run', () => {
    for (const file of TARGET_FILES) expect(dockerfile).toContain(`COPY ${file} /app/${file}`);
    const facts = checkoutFacts(REPO_ROOT);
    expect(dockerfile).toContain(`talosctl:${facts.talosVersion} `);
    expect(dockerfile).toContain(`kubectl:v${facts.kubernetesVersion} `);
    const apt = /apt-get install -y --no-install-recommends ([^\\\n]+)/.exec(dockerfile)![1]!.split(/\s+/);
    expect(apt).toEqual(expect.arrayContaining(['sqlite3', 'postgresql-client', 'zstd', 'restic']));
    expect(dockerfile).toMatch(/^COPY --from=etcd \/usr\/local\/bin\/etcd \/usr\/local\/bin\/etcdctl \/usr\/local\/bin\/etcdutl \/usr\/local\/bin\/$/m);
    expect(dockerfile).toMatch(/^ENV BACKUP_REPO_ROOT=\/app /m);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "\/app\/backup\.mjs"\]$/m);
  });

  it("runs the etcd the cluster's Talos runs, since etcd restores a snapshot only into its own minor", () => {
    const facts = checkoutFacts(REPO_ROOT);
    expect(etcdMismatch(dockerfile, facts)).toBeUndefined();
    // Renovate moving Talos to 1.14 (etcd 3.7) without the image, or to a minor the facts have no row for.
    expect(etcdMismatch(dockerfile, { ...facts, talosVersion: 'v1.14.0' })).toBe(
      "Talos 1.14 runs etcd 3.7.1 but scripts/backup/Dockerfile's etcd stage is 3.6: move it to 3.7.1",
    );
    expect(etcdMismatch(dockerfile, { ...facts, talosVersion: 'v1.15.0' })).toMatch(/^the cluster facts' talosEtcd has no row for Talos 1\.15/);
    expect(etcdMismatch(dockerfile.replace(/ AS etcd$/m, ' AS etcd-tools'), facts)).toMatch(/etcd stage is none: /);
  });

  it('the bundle carries the targets model, not the gate behind the front door', () => {
    const text = readFileSync(bundle, 'utf8');
    expect(text).toContain('function loadTargets(');
    for (const gateOnly of ['function runGate(', 'function registeredChecks(', 'function renderRepo(', 'function buildGate('])
      expect(text).not.toContain(gateOnly);
  });

  /** The bundle run with plain node in a work folder of its own, as the image runs it. */
  const bundleIn = (name: string) => {
    const work = join(app, name);
    const env = { ...resticEnv(), BACKUP_REPO_ROOT: app, BACKUP_DIR: join(work, 'backups'), BACKUP_SOURCE_ROOT: join(work, 'source'), BASE_URL: undefined };
    return { work, env, node: (...args: string[]) => exec(process.execPath, [join(app, 'backup.mjs'), ...args], { env }) };
  };

  it.skipIf(skip)('runs every command with plain node from the bundle: one line and exit 1 on any failure', async () => {
    const { work, env, node } = bundleIn('work');
    mkdirSync(join(work, 'source/config'), { recursive: true });
    await output('sqlite3', [join(work, 'source/config/sonarr.db'), 'CREATE TABLE t (x); INSERT INTO t VALUES (1);']);
    expect(await node('backup-check', 'sonarr')).toMatchObject({ code: 1, stdout: `backup-check sonarr: no backup at all in ${env.BACKUP_DIR}\n` });
    expect(await node('backup', 'sonarr')).toMatchObject({ code: 0, stderr: '' });
    expect(await node('backup-check', 'sonarr')).toMatchObject({ code: 0, stdout: 'backup-check sonarr: ok\n' });
    // In a pod without kubectl, the operator stops the app and says so.
    expect(await node('restore', 'sonarr', '--app-stopped')).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(
        /not scaling sonarr: stopped by the operator[\s\S]*restored \S+ \(\/config\/sonarr\.db\)\nrestore sonarr: undo copies, kept 14 days: \S+\/config\/sonarr\.db\.pre-restore-\d{8}T\d{9}Z\n$/,
      ),
    });
    expect(await node('restore-test', 'sonarr', 'radarr')).toMatchObject({
      code: 1,
      stdout: `PASS sonarr\nFAIL radarr: no backup to restore in ${env.BACKUP_DIR}\n`,
    });
  });

  it.skipIf(skip)('answers a usage error with its usage and exit 2, and --help with exit 0, from the bundle', async () => {
    const { node } = bundleIn('usage');
    // Each a process that touches nothing: run side by side.
    const [unknownTarget, unknownOption, extra, ...rest] = await Promise.all([
      node('backup', 'nope'),
      node('restore', 'sonarr', '--frm', 'x'),
      node('backup', 'sonarr', 'radarr'),
      ...['backup', 'backup-check', 'restore', 'restore-test'].map((command) => node(command, '--help')),
      node('no-such-command'),
      node(),
      node('--help'),
    ]);
    expect(unknownTarget).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^backup nope: unknown target "nope"; declared: sonarr, .*etcd \(usage: backup <target>\)\n$/),
    });
    expect(unknownOption).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^restore sonarr: Unknown option '--frm' \(usage: restore <target>/),
    });
    expect(extra).toMatchObject({
      code: 2,
      stderr: 'backup sonarr: unexpected argument "radarr" (usage: backup <target>)\n',
    });
    const [noSuchCommand, bare, help] = rest.slice(4);
    ['backup', 'backup-check', 'restore', 'restore-test'].forEach((command, i) =>
      expect(rest[i]).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^usage: ${command}`)), stderr: '' }),
    );
    expect(noSuchCommand).toMatchObject({ code: 2, stderr: expect.stringMatching(/^usage: <backup\|backup-check\|restore\|restore-test>/) });
    // The entrypoint with no argument at all, as `docker run` of the bare image: usage, exit 2; --help prints it, exit 0.
    expect(bare).toMatchObject({ code: 2, stderr: expect.stringMatching(/^usage: /) });
    expect(help).toMatchObject({ code: 0, stdout: expect.stringMatching(/^usage: /) });
  });
});
