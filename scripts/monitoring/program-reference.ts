/**
 * What the reference commands share (`loki:reference`, `tempo:reference`, `gluetun:reference`, `alloy:reference`, `unpoller:reference`): the reference's last
 * source and pin, which a refresh keeps unless told otherwise, and the command itself: `--from <local clone>` (required:
 * the names are read from its tree), `--ref <tag>`, `--chart-version <v>` (for a program a chart runs), `--root <repo>`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { runCommand, UsageError, type CommandIo } from '../lib/command.ts';
import { REPO_ROOT } from '../../policy-tests/index.ts';

export interface RefreshOptions {
  root: string;
  from: string;
  ref?: string;
  chartVersion?: string;
}

/** Where a refresh reads from and what it pins: the options over the reference's own source and pin. */
export function refreshTarget(
  o: RefreshOptions,
  file: string,
  repository: string,
  { chart = true }: { chart?: boolean } = {},
): { repository: string; ref: string; chartVersion: string } {
  let previous: { source?: { ref?: string; repository?: string }; pin?: { version?: string } } = {};
  try {
    previous = (parseDocument(readFileSync(join(o.root, file), 'utf8')).toJS() ?? {}) as typeof previous;
  } catch {
    // No reference yet: the options say everything.
  }
  const ref = o.ref ?? previous.source?.ref;
  if (!ref) throw new UsageError(`${file} names no source.ref: give --ref <tag>`);
  const chartVersion = o.chartVersion ?? previous.pin?.version ?? '';
  if (chart && !chartVersion) throw new UsageError(`${file} names no pin.version: give --chart-version <chart version>`);
  return { repository: previous.source?.repository ?? repository, ref, chartVersion };
}

export interface ReferenceCommand {
  name: string;
  /** The upstream project, for `--from`'s words. */
  project: string;
  help: string;
  refresh: (o: RefreshOptions) => Promise<string>;
  /** Whether a chart runs the program (its version pinned with `--chart-version`); an image alone is pinned by its tag. */
  chart?: boolean;
}

export async function referenceCommand(c: ReferenceCommand, argv: string[], io?: CommandIo): Promise<number> {
  const out = (line: string) => (io ?? { stdout: (t: string) => process.stdout.write(t) }).stdout(`${line}\n`);
  return runCommand(
    {
      name: c.name,
      usage: `${c.name} --from <clone of ${c.project}> [--ref <tag>]${c.chart === false ? '' : ' [--chart-version <v>]'} [--root <repo>]`,
      help: c.help,
      options: {
        from: { type: 'string' },
        ref: { type: 'string' },
        ...(c.chart === false ? {} : { 'chart-version': { type: 'string' as const } }),
        root: { type: 'string' },
      },
      positionals: { min: 0, max: 0 },
      async run({ values }) {
        if (values.from === undefined) throw new UsageError(`--from <local clone of ${c.project}> is needed: the field names are read from its tree`);
        out(
          await c.refresh({
            root: (values.root as string | undefined) ?? REPO_ROOT,
            from: String(values.from),
            ref: values.ref as string | undefined,
            chartVersion: values['chart-version'] as string | undefined,
          }),
        );
        return 0;
      },
    },
    argv,
    io,
  );
}
