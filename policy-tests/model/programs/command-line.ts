/** The command-line readers an image's facts may name for a program (`options`): Python's argparse, or Node's script. */
import { isArgparseOptions, type ArgparseOptions } from './argparse.ts';
import { isNodeScripts, type NodeScripts } from './node-command.ts';

export type ProgramOptions = ArgparseOptions | NodeScripts;

/** Whether a facts entry is one of the readers' entries. */
export const isProgramOptions = (v: unknown): boolean => isArgparseOptions(v) || isNodeScripts(v);
