/**
 * Whether Renovate covers every pin: each pin the scanner found must be a
 * dependency some Renovate manager extracted from the same file, with the
 * same version (or digest), or fall under an exemption that says why no
 * manager should move it. Pure: the pins, the extraction and the exemptions
 * come in, the verdict goes out.
 */
import { matchesGlob } from 'node:path';
import { parse } from 'yaml';
import type { ExtractedDep } from './renovate.ts';
import type { Pin } from './pins.ts';

/** Version strings that are not pins for Renovate to move, with the reason. */
export interface Exemption {
  /** A glob over repository paths. */
  files: string;
  /** The keys (YAML/JSON key, Dockerfile instruction, shell variable) the exemption covers. */
  keys: string[];
  reason: string;
}

/** The repository's exemptions file: a YAML list of {files, keys, reason}. */
export const EXEMPTIONS_FILE = '.github/renovate-unmanaged.yaml';

/** Parses the exemptions file; throws one line naming what is wrong. */
export function parseExemptions(text: string): Exemption[] {
  const data: unknown = parse(text) ?? [];
  if (!Array.isArray(data)) throw new Error(`${EXEMPTIONS_FILE}: expected a list of {files, keys, reason}`);
  return data.map((e: Partial<Exemption>, i) => {
    const where = `${EXEMPTIONS_FILE}: entry ${i + 1}`;
    if (typeof e?.files !== 'string' || !e.files) throw new Error(`${where} has no files glob`);
    if (!Array.isArray(e.keys) || e.keys.length === 0 || !e.keys.every((k) => typeof k === 'string')) throw new Error(`${where} (${e.files}) has no keys`);
    if (typeof e.reason !== 'string' || !e.reason.trim()) throw new Error(`${where} (${e.files}) gives no reason`);
    return { files: e.files, keys: e.keys, reason: e.reason };
  });
}

export interface Coverage {
  /** Pins some Renovate manager extracted. */
  covered: Pin[];
  /** Pins an exemption covers. */
  exempt: Pin[];
  /** Pins nothing covers: each one fails the check. */
  uncovered: Pin[];
  /** Exemptions that match no pin any more: stale, and they fail the check too. */
  unusedExemptions: Exemption[];
}

export function coverage(pins: readonly Pin[], deps: readonly ExtractedDep[], exemptions: readonly Exemption[]): Coverage {
  const byFile = new Map<string, ExtractedDep[]>();
  for (const d of deps) byFile.set(d.file, [...(byFile.get(d.file) ?? []), d]);
  const result: Coverage = { covered: [], exempt: [], uncovered: [], unusedExemptions: [] };
  const used = new Set<Exemption>();
  for (const pin of pins) {
    const extracted = (byFile.get(pin.file) ?? []).some((d) => d.currentValue === pin.version || d.currentDigest === pin.version);
    const exemption = exemptions.find((e) => e.keys.includes(pin.key) && matchesGlob(pin.file, e.files));
    if (extracted) result.covered.push(pin);
    else if (exemption) {
      result.exempt.push(pin);
      used.add(exemption);
    } else result.uncovered.push(pin);
  }
  result.unusedExemptions = exemptions.filter((e) => !used.has(e));
  return result;
}
