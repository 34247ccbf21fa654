import { runGate } from '../policy-tests/index.ts';
import { readFileSync, writeFileSync } from 'node:fs';
const root = '/tmp/mcopy';
const f = `${root}/portfolio-api/deploy/service.yaml`;
const orig = readFileSync(f, 'utf8');
const env = { ...process.env, HOMELAB_CHART_CACHE: `${root}/.no-charts` };
await runGate({ root, cwd: root, env });
const t0 = performance.now();
for (let i = 0; i < 20; i++) {
  writeFileSync(f, orig.replace('port: 80', `port: ${81 + i}`));
  await runGate({ root, cwd: root, env });
}
console.log('per warm mutation run', ((performance.now() - t0) / 20).toFixed(0), 'ms');
writeFileSync(f, orig);
