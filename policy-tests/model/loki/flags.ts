/**
 * Loki's command line as Loki 3.x reads it (cmd/loki/main.go, pkg/util/cfg): before anything else a word `-health`
 * runs its health check and a word `-version` prints its version, each then exiting; then Go's flag package parses
 * every word on the flag set its configuration registers (`cfg.DynamicUnmarshal` on flag.CommandLine):
 *   - a flag is `-name` or `--name`, its value after `=`, or, for one that takes a value, the next word whatever it
 *     is; a Bool takes a value only after `=`, as strconv.ParseBool reads it; the first word that is no flag, or `--`,
 *     ends the flags;
 *   - a flag no field registers, a value its type refuses, a missing value or bad syntax stops the parse, and Loki
 *     exits 2 ("Run with -help to get list of available parameters"); `-h` and `-help` print the usage and exit 2 too;
 *   - once the file is read, `-verify-config` exits 0 after checking it, and `-list-targets` after listing them.
 * The flags are the reference's (`flags`: each field's, as Loki's documentation names it, and the wrapper's own);
 * `undocumented` and `endings` are what Loki's source registers beyond it. A flag the gate does not know is refused
 * where it is a slip of a known one (one Loki's source registers under no prefix); one far from all of them, or one
 * that may be registered under a prefix, is not judged. A value Kubernetes fills in (`$(VAR)`) is not judged.
 */
import { byteSizeProblem } from './reference.ts';
import {
  readRegisteredFlags,
  registeredFlagsOf,
  type FlagProgram,
  type RegisteredFlagProblem,
  type RegisteredFlags,
  type RegisteredFlagType,
  type RegisteredFlagValues,
} from '../command-lines/registered-flags.ts';

export type LokiFlagType = RegisteredFlagType;
export type LokiFlags = RegisteredFlags;
export type LokiFlagProblem = RegisteredFlagProblem;
export type LokiFlagValues = RegisteredFlagValues;

/** Loki's main: `-health` and `-version` read before its flags (any number of dashes, no value), and its own flag set's help exit. */
const LOKI: FlagProgram = {
  name: 'Loki',
  early: [
    [/^-+health$/, 'runs Loki as its own health check (it asks /ready and exits), so Loki never starts'],
    [/^-+version$/, 'makes Loki print its version and exit 0, so Loki never starts'],
  ],
  stops: [
    ['-verify-config', 'check its configuration and exit 0'],
    ['-list-targets', 'list its targets and exit 0'],
  ],
  helpExit: 2,
  byteSize: byteSizeProblem,
};

/** The flags a reference document lists (`flags` and `undocumented`: the names of each type; `endings`), or undefined where it lists none. */
export const lokiFlags = (doc: unknown): LokiFlags | undefined => registeredFlagsOf(doc);

/**
 * What Loki's arguments do: the first word that stops it before it serves (or that the gate cannot judge), and the
 * last value of each flag they set (of the words before that one, where one stops the parse).
 */
export const readLokiFlags = (words: readonly string[], flags: LokiFlags): { problem: LokiFlagProblem | undefined; values: LokiFlagValues } =>
  readRegisteredFlags(words, flags, LOKI);

/** The first word of Loki's arguments that stops it before it serves (or that the gate cannot judge), or undefined. */
export const lokiFlagProblem = (words: readonly string[], flags: LokiFlags): LokiFlagProblem | undefined => readLokiFlags(words, flags).problem;
