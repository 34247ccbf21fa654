/**
 * The alert path's real tools (Debian prometheus-alertmanager 0.25) for the tests that run them: amtool and
 * Alertmanager found (CI=true lets none be missing), the repository's Alertmanager configuration written to a folder
 * of the file's own, and a real Alertmanager started on 127.0.0.1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { stringify } from 'yaml';
import { alertmanagerConfigs, type AmConfig } from '../../model/monitoring/alertmanager.ts';
import { loadRepo, type Repo } from '../../model/repository/repo.ts';
import { installed } from '../../../test-support/exec.ts';
import { skipForMissing } from '../../../test-support/missing-tool.ts';

export const HAS_AMTOOL = !skipForMissing((await installed('amtool')) ? [] : ['amtool'], 'alert routing');
const FOUND_ALERTMANAGER = (await installed('alertmanager'))
  ? 'alertmanager'
  : (await installed('prometheus-alertmanager'))
    ? 'prometheus-alertmanager'
    : undefined;
/** The Alertmanager binary's name, or undefined where the tests that start one skip. */
export const ALERTMANAGER = skipForMissing(FOUND_ALERTMANAGER ? [] : ['alertmanager'], 'Alertmanager end to end') ? undefined : FOUND_ALERTMANAGER;
if (!HAS_AMTOOL || !ALERTMANAGER)
  console.warn(
    '\n*** amtool or alertmanager not found: SKIPPING the routing tests. Install Debian package "prometheus-alertmanager" (bash .ci/run does). ***\n',
  );

export interface AlertmanagerLab {
  repo: Repo;
  /** The repository's Alertmanager configuration, also written to `dir`/alertmanager.yml. */
  config: AmConfig;
  /** A folder of the file's own, removed after its tests. */
  dir: string;
}

/** The repository's configuration and a folder, set before the file's tests and removed after. */
export function useAlertmanagerLab(): AlertmanagerLab {
  const lab = {} as AlertmanagerLab;
  beforeAll(async () => {
    lab.repo = await loadRepo();
    lab.config = alertmanagerConfigs(lab.repo)[0]!.config;
    lab.dir = mkdtempSync(join(tmpdir(), 'alertmanager-'));
    writeFileSync(join(lab.dir, 'alertmanager.yml'), stringify(lab.config));
  });
  afterAll(() => {
    if (lab.dir) rmSync(lab.dir, { recursive: true, force: true });
  });
  return lab;
}

/** A real Alertmanager on a free port of 127.0.0.1 with `configFile`, ready; its URL and process. */
export async function startAlertmanager(configFile: string, storage: string): Promise<{ url: string; process: ChildProcess }> {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const am = spawn(
    ALERTMANAGER!,
    [`--config.file=${configFile}`, `--storage.path=${storage}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address='],
    {
      stdio: 'ignore',
    },
  );
  // Ready when /-/ready says so; an Alertmanager that exits instead fails at once.
  while ((await fetch(`${url}/-/ready`).catch(() => undefined))?.status !== 200) {
    if (am.exitCode !== null) throw new Error(`${ALERTMANAGER} exited before it was ready on ${url}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return { url, process: am };
}
