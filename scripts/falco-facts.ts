/**
 * Regenerates the upstream-names facts the Falco tuning checks read, from a
 * local copy of the upstream rules file:
 *   npm run falco:facts -- path/to/falco_rules.yaml --version 5.1.0
 * Only names are kept; the upstream rules themselves are never copied here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeOutputFile } from './lib/checkout-write.ts';
import { parse } from 'yaml';
import { frontDoor } from './lib/front-door.ts';
import { runCommand, UsageError, type CommandIo } from './lib/command.ts';

export interface UpstreamFacts {
  ruleset: string;
  version: string;
  required_engine_version?: string;
  rules: string[];
  macros: string[];
  lists: string[];
}

/** Names in file order, each once: the facts the copy and hook checks need. */
export function upstreamFacts(rulesYaml: string, version: string): UpstreamFacts {
  const items = parse(rulesYaml, { maxAliasCount: 100 }) as unknown;
  if (!Array.isArray(items)) throw new Error('not a Falco rules file: expected a YAML list');
  const names = (key: string) => [...new Set(items.filter((i) => i && typeof i[key] === 'string').map((i) => String(i[key])))];
  const engine = items.find((i) => i && 'required_engine_version' in i)?.required_engine_version;
  return {
    ruleset: 'falco-rules',
    version,
    ...(engine !== undefined ? { required_engine_version: String(engine) } : {}),
    rules: names('rule'),
    macros: names('macro'),
    lists: names('list'),
  };
}

/** The command: reads the rules file, writes the facts. */
export function falcoFactsCommand(argv: string[], io?: CommandIo): Promise<number> {
  return runCommand(
    {
      name: 'falco:facts',
      usage: 'falco:facts <falco_rules.yaml> --version <x.y.z> [--out <file>]',
      help: `Writes the rule, macro and list names of an upstream falco-rules file (only
the names; the rules are never copied) to
security/falco/facts/falco-rules-<version>-names.json, or to --out.`,
      options: { version: { type: 'string' }, out: { type: 'string' } },
      positionals: { min: 1, max: 1 },
      async run({ values, positionals: [rules] }) {
        const version = values.version as string | undefined;
        if (!version) throw new UsageError('--version <x.y.z> is required: the facts are named by the ruleset version');
        let text: string;
        try {
          text = readFileSync(rules!, 'utf8');
        } catch (err) {
          throw new Error(`cannot read ${rules}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
        }
        const facts = upstreamFacts(text, version);
        const { REPO_ROOT } = await frontDoor();
        const out = (values.out as string | undefined) ?? join(REPO_ROOT, 'security/falco/facts', `falco-rules-${version}-names.json`);
        const json = `${JSON.stringify(facts, null, 2)}\n`;
        writeOutputFile(REPO_ROOT, out, json);
        (io?.stdout ?? ((t: string) => process.stdout.write(t)))(
          `${out}: ${facts.rules.length} rules, ${facts.macros.length} macros, ${facts.lists.length} lists\n`,
        );
        return 0;
      },
    },
    argv,
    io,
  );
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await falcoFactsCommand(process.argv.slice(2));
