/**
 * The Dockerfile's build step: the sources compile to plain JavaScript that
 * runs on Node without tsx, as the container runs them.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { exec } from '../../test-support/exec.ts';
import { request } from './harness.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = `${root}.test-dist`;
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('production build', () => {
  it('compiles with tsconfig.build.json and serves the API with plain node', async () => {
    const tsc = await exec(process.execPath, [
      fileURLToPath(new URL('../../node_modules/typescript-native/bin/tsc', import.meta.url)),
      '-p',
      `${root}tsconfig.build.json`,
      '--outDir',
      outDir,
    ]);
    expect(tsc.stdout + tsc.stderr).toBe('');
    const server = spawn(process.execPath, [`${outDir}/server.js`], {
      env: { ...process.env, BASE_URL: 'http://127.0.0.1', PORT: '0', METRICS_PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stderr = '';
      server.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const line = await new Promise<string>((resolve, reject) => {
        server.stdout.on('data', (d: Buffer) => resolve(d.toString()));
        server.on('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
      });
      const { api } = JSON.parse(line.split('\n')[0]!) as { api: string };
      const health = await request(`http://${api}/api/health`);
      expect(await health.json()).toEqual({ status: 'ok' });
    } finally {
      server.kill('SIGTERM');
    }
    const exit = await new Promise<number | null>((resolve) => server.on('exit', resolve));
    expect(exit).toBe(0);
  });
});
