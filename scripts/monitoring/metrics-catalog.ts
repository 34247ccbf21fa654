/**
 * npm run metrics:catalog: the state of the metrics catalog, offline (what
 * the gate's metrics-catalog-current check says: stale and missing entries),
 * and `--refresh <exporter>`: re-reads an entry's metrics from the
 * exporter's own source at a tag, online from GitHub or from a local clone
 * (`--from`), and rewrites the entry for that version.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isSeq, parseDocument } from 'yaml';
import { runCommand, UsageError, type CommandIo } from '../lib/command.ts';
import { writeInCheckout } from '../lib/checkout-write.ts';
import { readUpstreamFile } from '../lib/upstream-source.ts';
import { frontDoor } from '../lib/front-door.ts';

const CHECK = 'metrics-catalog-current';

interface Source {
  repository: string;
  ref: string;
  files: string[];
  extract: string;
}

/** Reads one source file at a ref: this repository's own code from the working tree, any other from a local clone or GitHub. */
async function readSource(source: Source, at: { ref: string; file: string }, { from, root }: { from?: string; root: string }): Promise<string> {
  const { facts } = await frontDoor();
  // This repository's own code (the portfolio API): the working tree is the source.
  if (source.repository === facts.THIS_REPOSITORY) return readFileSync(join(root, at.file), 'utf8');
  return readUpstreamFile(source.repository, at, from);
}

export interface RefreshOptions {
  root: string;
  exporter: string;
  version?: string;
  chartVersion?: string;
  from?: string;
}

/** Rewrites the entry of `exporter` for `version` (default: its own), from its source; returns the file written. */
export async function refreshEntry(o: RefreshOptions): Promise<string> {
  const { facts } = await frontDoor();
  const dir = join(o.root, facts.CATALOG_DIR);
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml') && join(facts.CATALOG_DIR, f) !== facts.CATALOG_EXEMPTIONS);
  const found = files.map((f) => ({ f, doc: parseDocument(readFileSync(join(dir, f), 'utf8')) })).filter(({ doc }) => doc.get('exporter') === o.exporter);
  if (found.length === 0) throw new UsageError(`no catalog entry for exporter ${o.exporter}`);
  const { f, doc } = found[0]!;
  const source = (doc.toJS() as { source?: Source }).source;
  if (!source?.extract || !facts.isExtractor(source.extract)) {
    throw new Error(
      `${facts.CATALOG_DIR}${f} is kept by hand (source.extract: ${source?.extract ?? 'unset'}): read ${source?.files?.join(', ') ?? 'its source'} at the new tag and edit it`,
    );
  }
  const oldVersion = String(doc.get('version'));
  const version = o.version ?? oldVersion;
  // The ref follows the version: v3.5.5 -> v3.6.0, 1.3.0 -> 1.4.0.
  const ref = source.ref.includes(oldVersion.replace(/^v/, '')) ? source.ref.replace(oldVersion.replace(/^v/, ''), version.replace(/^v/, '')) : version;
  const texts = await Promise.all(source.files.map((file) => readSource(source, { ref, file }, o)));
  const metrics = facts.extractAll(source.extract, texts);
  if (Object.keys(metrics).length === 0)
    throw new Error(`the ${source.extract} extractor found no metrics in ${source.files.join(', ')} at ${ref}; the exporter changed how it declares them`);
  doc.set('version', version);
  doc.setIn(['source', 'ref'], ref);
  if (o.chartVersion !== undefined) doc.setIn(['pin', 'version'], o.chartVersion);
  // One line per metric: name: [labels].
  const node = doc.createNode(metrics);
  for (const pair of node.items) if (isSeq(pair.value)) pair.value.flow = true;
  doc.set('metrics', node);
  const name = `${o.exporter}-${version}.yaml`;
  writeInCheckout(o.root, `${facts.CATALOG_DIR}${name}`, doc.toString({ lineWidth: 0, flowCollectionPadding: false }));
  if (name !== f) rmSync(join(dir, f));
  return `${facts.CATALOG_DIR}${name}`;
}

export async function main(argv: string[], io?: CommandIo): Promise<number> {
  const out = (line: string) => (io ?? { stdout: (t: string) => process.stdout.write(t) }).stdout(`${line}\n`);
  return runCommand(
    {
      name: 'metrics:catalog',
      usage: 'metrics:catalog [--refresh <exporter> [--version <v>] [--chart-version <v>] [--from <local clone>]] [--root <repo>]',
      help: `Without --refresh: what the gate's ${CHECK} check finds, offline (stale entries after a
version bump, monitors without an entry, malformed entries); exit 1 when anything is.
--refresh <exporter>: reads the entry's source files at the tag of --version (default: the
entry's own) from GitHub, or from the git clone --from names, extracts the metrics with the
entry's extractor, and rewrites monitoring/metrics-catalog/<exporter>-<version>.yaml.
--chart-version <v> also sets the entry's pin.version (the chart that ships the exporter).
--root <repo>: the repository to read and write (default: this one).
Entries kept by hand (source.extract: manual) are refused with what to read instead.`,
      options: {
        refresh: { type: 'string' },
        version: { type: 'string' },
        'chart-version': { type: 'string' },
        from: { type: 'string' },
        root: { type: 'string' },
      },
      positionals: { min: 0, max: 0 },
      async run({ values }) {
        const { runGate, allFindings, REPO_ROOT } = await frontDoor();
        const root = (values.root as string | undefined) ?? REPO_ROOT;
        if (values.refresh !== undefined) {
          const written = await refreshEntry({
            root,
            exporter: String(values.refresh),
            version: values.version as string | undefined,
            chartVersion: values['chart-version'] as string | undefined,
            from: values.from as string | undefined,
          });
          out(`wrote ${written}; run the gate to see what the new version changes`);
          return 0;
        }
        if (values.version !== undefined || values.from !== undefined || values['chart-version'] !== undefined)
          throw new UsageError('--version, --chart-version and --from go with --refresh');
        // Rendered (or counted as not rendered): with --no-render the policy layer does not run at all.
        const result = await runGate({ root });
        const findings = allFindings(result).filter((f) => f.check === CHECK);
        for (const f of findings) out(`${f.file}:${f.line}: ${f.message}`);
        out(
          findings.length
            ? `${findings.length} catalog problem(s); entries are refreshed with --refresh <exporter>`
            : 'metrics catalog: every entry matches its pin, every monitor has an entry',
        );
        return findings.length ? 1 : 0;
      },
    },
    argv,
    io,
  );
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await main(process.argv.slice(2));
