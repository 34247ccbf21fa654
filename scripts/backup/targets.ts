/**
 * The declared backup targets, read through the gate's front door. A module of its own, imported by cli.ts when a
 * command runs: a command's --help and usage errors answer without loading the gate, and the image's bundle still
 * takes from the front door only what this module names (esbuild keeps every export of a module imported
 * dynamically, so the front door itself is imported here, statically).
 */
import { facts } from '../../policy-tests/index.ts';
import type { Target } from './engines/types.ts';

export const loadDeclaredTargets = (repoRoot: string): Map<string, Target> => facts.loadTargets(repoRoot);
