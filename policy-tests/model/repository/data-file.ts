/** A data file of the repository (Helm values, facts, settings, TOML): its data, where each key stands, and what its parser said. */
import { parse as parseToml } from 'smol-toml';
import type { Positions } from '../core/manifest.ts';

export interface DataFile {
  file: string;
  data: unknown;
  positions: Positions;
  /** Parse errors, reported by the checks that read the file. */
  errors: string[];
  /** For Helm values files: plain scalars Helm (YAML 1.1) reads differently from this gate (YAML 1.2). */
  ambiguities?: { line: number; col: number; message: string }[];
}

/**
 * TOML (wrangler.toml) through smol-toml. It keeps no positions, so a path
 * resolves to the first line that assigns its last key: enough to point a
 * human at `routes` or `crons`.
 */
export function parseTomlFile(file: string, text: string): DataFile {
  const lines = text.split('\n');
  const positions: Positions = {
    at(path) {
      const key = [...path].reverse().find((p) => typeof p === 'string');
      const index = key === undefined ? -1 : lines.findIndex((l) => new RegExp(`^\\s*"?${String(key).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"?\\s*=`).test(l));
      return { line: index + 1 || 1, col: 1 };
    },
  };
  try {
    return { file, data: parseToml(text), positions, errors: [] };
  } catch (err) {
    return { file, data: undefined, positions, errors: [`${file}: ${(err as Error).message.split('\n')[0]}`] };
  }
}
