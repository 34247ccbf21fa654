/**
 * Bundles the backup commands into one ESM file for the backup image
 * (scripts/backup/Dockerfile): plain Node runs it, no tsx and no node_modules.
 * Usage: node scripts/backup/bundle.ts <out-dir>
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

export async function bundleBackupCommands(outDir: string): Promise<string> {
  const outfile = `${outDir}/backup.mjs`;
  await build({
    entryPoints: [fileURLToPath(new URL('main.ts', import.meta.url))],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    // ajv and its friends are CommonJS and call require() for Node built-ins.
    banner: { js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);" },
    logLevel: 'warning',
  });
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2];
  if (!out) throw new Error('usage: bundle.ts <out-dir>');
  process.stdout.write(`${await bundleBackupCommands(out)}\n`);
}
