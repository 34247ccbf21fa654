/**
 * What an image change risks: a new major version, or another registry or
 * publisher (trust moves with it, whatever the version). Per container name,
 * across every pod template of an object.
 */
import { facts } from '../../policy-tests/index.ts';
import { isRecord } from '../lib/values.ts';

function images(object: unknown): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (isRecord(v)) {
      if (typeof v.image === 'string' && typeof v.name === 'string') out.set(v.name, v.image);
      Object.values(v).forEach(walk);
    }
  };
  walk(object);
  return out;
}

/** The major version of a tag or chart version (v1.2.3 is 1). */
export const major = (tag: string) => /^v?(\d+)/.exec(tag)?.[1];

/** An image reference's tag, as the model splits it (a registry's port is no tag); empty when it has none. */
const tagOf = (ref: string) => facts.imageParts(ref).tag ?? '';

/** An image reference without its tag and digest, Docker Hub's long and short forms one name: who publishes it. */
const repositoryOf = (ref: string) => facts.imageKey(ref);

/** Images that now come from another registry or publisher: trust moves with them, whatever the version. */
export function registryRisk(a: unknown, b: unknown): string[] {
  const [ia, ib] = [images(a), images(b)];
  const out: string[] = [];
  for (const [name, to] of ib) {
    const from = ia.get(name);
    if (from && repositoryOf(from) !== repositoryOf(to))
      out.push(`container ${name}: the image moves from ${repositoryOf(from)} to ${repositoryOf(to)}, another registry or publisher`);
  }
  return out;
}

/** Image changes, with whether the major moved (a digest alone moves no major). */
export function imageRisk(a: unknown, b: unknown): { line: string; major: boolean }[] {
  const [ia, ib] = [images(a), images(b)];
  const out: { line: string; major: boolean }[] = [];
  for (const [name, to] of ib) {
    const from = ia.get(name);
    if (!from || from === to) continue;
    const [fa, ta] = [major(tagOf(from)), major(tagOf(to))];
    const moved = fa !== undefined && ta !== undefined && fa !== ta;
    out.push({ line: `container ${name}: ${from} -> ${to}${moved ? ' (a major version)' : ''}`, major: moved });
  }
  return out;
}
