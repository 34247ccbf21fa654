/**
 * Regenerates the fields facts the Falco tuning checks read (the names of every field a condition may read), from
 * local checkouts of the sources the sensor is built from:
 *   npm run falco:fields -- --libs <falcosecurity/libs at the tag Falco links> \
 *     --container-plugin <falcosecurity/plugins at plugins/container/vX> --falco 0.44.1
 * The syscall fields are libsinsp's filter check tables (userspace/libsinsp/sinsp_filtercheck_*.cpp), each with
 * whether it takes an argument; the container and Kubernetes ones the container plugin's extraction table
 * (plugins/container/src/caps/extract/extract.cpp). Only names and flags are kept.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeOutputFile } from './lib/checkout-write.ts';
import { frontDoor } from './lib/front-door.ts';
import { runCommand, UsageError, type CommandIo } from './lib/command.ts';

export interface FieldFacts {
  falco: string;
  /** Each field a condition may read, and whether it takes an argument (`[x]`, or for some `.x`). */
  fields: Record<string, 'none' | 'allowed' | 'required'>;
}

const read = (file: string): string => {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
};

/** The fields of libsinsp's filter check tables and of the container plugin's extraction table. */
export function fieldFacts(libsDir: string, pluginDir: string, falco: string): FieldFacts {
  const fields: FieldFacts['fields'] = {};
  const sinsp = join(libsDir, 'userspace/libsinsp');
  let files: string[];
  try {
    files = readdirSync(sinsp).filter((f) => /^sinsp_filtercheck_\w+\.cpp$/.test(f));
  } catch (err) {
    throw new Error(`cannot read ${sinsp}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  for (const file of files)
    for (const m of read(join(sinsp, file)).matchAll(/\{\s*PT_\w+,\s*([A-Z_|\s]+?),\s*PF_\w+,\s*"([^"]+)"/g)) {
      if (!m[2]!.includes('.')) continue;
      fields[m[2]!] = m[1]!.includes('EPF_ARG_REQUIRED') ? 'required' : m[1]!.includes('EPF_ARG_ALLOWED') ? 'allowed' : 'none';
    }
  // The plugin's table says an argument through its own options; a plugin field is taken with or without one here.
  for (const m of read(join(pluginDir, 'plugins/container/src/caps/extract/extract.cpp')).matchAll(/ft::FTYPE_\w+,\s*"([^"]+)"/g)) fields[m[1]!] ??= 'allowed';
  if (Object.keys(fields).length === 0) throw new Error(`no field tables found under ${libsDir}`);
  return { falco, fields: Object.fromEntries(Object.entries(fields).sort(([a], [b]) => a.localeCompare(b))) };
}

/** The command: reads both checkouts, writes security/falco/facts/falco-<version>-fields.json. */
export function falcoFieldsCommand(argv: string[], io?: CommandIo): Promise<number> {
  return runCommand(
    {
      name: 'falco:fields',
      usage: 'falco:fields --libs <checkout> --container-plugin <checkout> --falco <x.y.z> [--out <file>]',
      help: `Writes the names of the fields a Falco condition may read (libsinsp's filter
checks at the tag the Falco release links, and the container plugin's) to
security/falco/facts/falco-<version>-fields.json, or to --out.`,
      options: { libs: { type: 'string' }, 'container-plugin': { type: 'string' }, falco: { type: 'string' }, out: { type: 'string' } },
      positionals: { min: 0, max: 0 },
      async run({ values }) {
        const [libs, plugin, falco] = [values.libs, values['container-plugin'], values.falco] as (string | undefined)[];
        if (!libs || !plugin || !falco) throw new UsageError('--libs, --container-plugin and --falco are required');
        const facts = fieldFacts(libs, plugin, falco);
        const { REPO_ROOT } = await frontDoor();
        const out = (values.out as string | undefined) ?? join(REPO_ROOT, 'security/falco/facts', `falco-${falco}-fields.json`);
        const json = `${JSON.stringify(facts, null, 2)}\n`;
        writeOutputFile(REPO_ROOT, out, json);
        (io?.stdout ?? ((t: string) => process.stdout.write(t)))(`${out}: ${Object.keys(facts.fields).length} fields\n`);
        return 0;
      },
    },
    argv,
    io,
  );
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await falcoFieldsCommand(process.argv.slice(2));
