/**
 * The command-line readers an image's facts may name for a program (`options`): Python's argparse, kingpin (the flags of
 * Prometheus' Go programs), Go's own flag package, pflag under cobra (Alloy's, kube-state-metrics'), cxxopts (Falco's),
 * or the script Node or Python runs.
 */
import { isArgparseOptions, type ArgparseOptions } from './argparse.ts';
import { isCxxoptsOptions, type CxxoptsOptions } from './cxxopts.ts';
import { isGoFlagOptions, type GoFlagOptions } from './go-flag-facts.ts';
import { isKingpinOptions, type KingpinOptions } from './kingpin.ts';
import { isPflagOptions } from './pflag-facts.ts';
import type { PflagOptions } from './pflag.ts';
import { isScriptRunner, type ScriptRunner } from './script-command.ts';

export type ProgramOptions = ArgparseOptions | KingpinOptions | GoFlagOptions | PflagOptions | CxxoptsOptions | ScriptRunner;

/** Every field a reader's entry may have, each reader reading its own. */
export const PROGRAM_OPTIONS_KEYS = [
  ...['program', 'parser', 'flags', 'withValue', 'values', 'scripts'],
  ...['subcommand', 'traverse', 'commands', 'positional', 'shorthands', 'optional', 'needs', 'exclusive', 'apart', 'notBelow', 'whole', 'overriddenBy'],
  ...['repeatable', 'short', 'exits', 'conflicts', 'implicit', 'lists'],
];

/** Whether a facts entry is one of the readers' entries. */
export const isProgramOptions = (v: unknown): boolean =>
  isArgparseOptions(v) || isKingpinOptions(v) || isGoFlagOptions(v) || isPflagOptions(v) || isCxxoptsOptions(v) || isScriptRunner(v);
