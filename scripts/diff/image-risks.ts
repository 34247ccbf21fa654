/**
 * What an image change risks: a new major version, or another registry or
 * publisher (trust moves with it, whatever the version). Per container name,
 * across every pod template of an object.
 */
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

/** An image reference's tag: after the last colon of the name, before any digest. */
const tagOf = (ref: string) => {
  const name = ref.split('@')[0]!;
  const colon = name.lastIndexOf(':');
  return colon > name.lastIndexOf('/') ? name.slice(colon + 1) : '';
};

/** An image reference without its tag and digest: the registry and the repository, which say who publishes it. */
const repositoryOf = (ref: string) => {
  const name = ref.split('@')[0]!;
  const colon = name.lastIndexOf(':');
  const repo = colon > name.lastIndexOf('/') ? name.slice(0, colon) : name;
  // Docker Hub's short forms name the same repository as their long ones.
  const parts = repo.split('/');
  const hasRegistry = parts.length > 1 && /[.:]|^localhost$/.test(parts[0]!);
  const full = hasRegistry ? parts : ['docker.io', ...(parts.length === 1 ? ['library', ...parts] : parts)];
  return full.join('/').replace(/^index\.docker\.io\//, 'docker.io/');
};

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
