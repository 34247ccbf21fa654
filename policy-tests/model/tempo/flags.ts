/**
 * Tempo's command line as Tempo 2.10 reads it (cmd/tempo/main.go): Go's flag package parses every word on
 * flag.CommandLine, where main registers -version and its profiling flags, the configuration registers its own
 * (`Config.RegisterFlagsAndApplyDefaults`: the whole names the reference lists, and each module's under its prefix),
 * and the file's three flags are registered again as flags that take a value and ignore it. An unknown flag, a value
 * its type refuses or a missing value stops it with exit 2, and `-h`/`-help` with exit 0; once the file is read,
 * `-version` prints the version and `-config.verify` checks the file, each then exiting (model/command-lines/
 * registered-flags.ts). The tempo chart (2.x) gives the container `-config.file=/conf/tempo.yaml`,
 * `-mem-ballast-size-mbs=<tempo.memBallastSizeMbs>`, then each `tempo.extraArgs` entry in key order, `-<key>=<value>`
 * (the value as Helm prints a number it read as float64: 1000000 is `1e+06`, which no int flag reads), or `-<key>`
 * alone where the value is empty, false or 0 (its template's `if`).
 */
import { isMap } from '../core/dig.ts';
import { goPrint } from '../go/fmt.ts';
import { scalarText } from '../core/text.ts';
import { workloadContainers, type ContainerRef, type PodSpecRef } from '../core/workloads.ts';
import type { Resource } from '../core/manifest.ts';
import { renderedByChart } from '../helm/chart-output.ts';
import { imageKey } from '../repository/image-facts.ts';
import {
  readRegisteredFlags,
  type FlagProgram,
  type RegisteredFlagProblem,
  type RegisteredFlags,
  type RegisteredFlagValues,
} from '../command-lines/registered-flags.ts';
import { TEMPO_CHART } from './config.ts';

export const TEMPO_IMAGE = 'grafana/tempo';

const TEMPO: FlagProgram = {
  name: 'Tempo',
  early: [],
  stops: [
    ['-version', 'print its version and exit 0'],
    ['-config.verify', 'check its configuration and exit'],
  ],
  helpExit: 0,
  goInts: true,
};

/** What Tempo's arguments do: the first word that stops it before it serves (or that the gate cannot judge), and the last value of each flag. */
export const readTempoFlags = (
  words: readonly string[],
  flags: RegisteredFlags,
): { problem: RegisteredFlagProblem | undefined; values: RegisteredFlagValues } => readRegisteredFlags(words, flags, TEMPO);

/** The words the chart writes of a `tempo.extraArgs` map, in its template's order (Go's range over a map: by key), each with its key. */
export function extraArgWords(extraArgs: unknown): { key: string; word: string }[] {
  if (!isMap(extraArgs)) return [];
  return Object.keys(extraArgs)
    .sort()
    .map((key) => {
      const value = extraArgs[key];
      const empty =
        value === null ||
        value === undefined ||
        value === false ||
        value === 0 ||
        value === '' ||
        (typeof value === 'object' && Object.keys(value).length === 0);
      return { key, word: empty ? `-${key}` : `-${key}=${goPrint(value)}` };
    });
}

/** The Tempo containers of the workloads the tempo chart of Application `app` renders. */
export function tempoContainers(resources: readonly Resource[], app: string): { resource: Resource; pod: PodSpecRef; c: ContainerRef }[] {
  return [...workloadContainers(resources)].filter(
    ({ resource, c }) =>
      resource.rendered?.app === app && renderedByChart(resource, TEMPO_CHART) && imageKey(scalarText(c.container.image ?? '')) === TEMPO_IMAGE,
  );
}
