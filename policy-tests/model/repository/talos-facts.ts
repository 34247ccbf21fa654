/**
 * What each Talos minor runs, as Talos itself decides: the Kubernetes versions its compatibility package allows
 * (`talosKubernetes`) and the etcd its constants name (`talosEtcd`). Each is a table of the cluster facts, a row per
 * Talos minor with where it was read, and a minor without a row is not known.
 */
import { listFact, SEMVER, type FactsProblem } from './fact-lists.ts';

/** One Talos minor's Kubernetes range: from `from`, up to `below` (not inclusive), read from `source`. */
export interface TalosKubernetes {
  talos: string;
  from: string;
  below: string;
  source: string;
}

/** The etcd one Talos minor runs on its control plane (DefaultEtcdVersion), read from `source`. */
export interface TalosEtcd {
  talos: string;
  etcd: string;
  source: string;
}

const release = (v: unknown): v is string => typeof v === 'string' && SEMVER.test(v);

/**
 * A fact that is a table of Talos minors (`talosKubernetes`, `talosEtcd`): each row a minor (1.13), what it runs as
 * `fields` reads it (undefined when malformed), and where that was read; one row per minor.
 */
function talosRows<T extends { talos: string; source: string }>(
  key: string,
  { raw, shape }: { raw: unknown; shape: string },
  problems: FactsProblem[],
  fields: (e: Record<string, unknown>) => Omit<T, 'talos' | 'source'> | undefined,
): T[] {
  const out: T[] = [];
  listFact(key, { raw, shape }, problems, (e, refuse) => {
    const { talos, source } = e;
    const read = fields(e);
    if (typeof talos !== 'string' || !/^\d+\.\d+$/.test(talos) || !read || typeof source !== 'string' || source.trim() === '')
      refuse(`: ${shape.slice(shape.indexOf('must'))}`);
    else if (out.some((r) => r.talos === talos)) refuse(` names Talos ${talos} again`);
    else out.push({ ...read, talos, source } as T);
  });
  return out;
}

/**
 * The `talosKubernetes` fact: a YAML list of {talos, kubernetes: {from, below}, source}, each Talos minor's range
 * as its machinery's compatibility package sets it (MinimumKubernetesVersion, and MaximumKubernetesVersion, which
 * it does not include). Absent, no Talos minor's range is known.
 */
export function talosKubernetesOf(raw: unknown, problems: FactsProblem[]): TalosKubernetes[] {
  const shape =
    'cluster fact "talosKubernetes" must be a YAML list of {talos, kubernetes: {from, below}, source}: a Talos minor (1.13), the Kubernetes versions it runs (x.y.z, below not included), and where that was read';
  return talosRows<TalosKubernetes>('talosKubernetes', { raw, shape }, problems, ({ kubernetes }) => {
    const { from, below } = (kubernetes ?? {}) as Record<string, unknown>;
    return release(from) && release(below) ? { from, below } : undefined;
  });
}

/**
 * The `talosEtcd` fact: a YAML list of {talos, etcd, source}, the etcd each Talos minor runs (its constants'
 * DefaultEtcdVersion, which the machine config does not override here). Absent, no Talos minor's etcd is known.
 */
export function talosEtcdOf(raw: unknown, problems: FactsProblem[]): TalosEtcd[] {
  const shape =
    'cluster fact "talosEtcd" must be a YAML list of {talos, etcd, source}: a Talos minor (1.13), the etcd version it runs (x.y.z), and where that was read';
  return talosRows<TalosEtcd>('talosEtcd', { raw, shape }, problems, ({ etcd }) => (release(etcd) ? { etcd } : undefined));
}

/** The minor (1.13) of the pinned Talos, or the fact as written when it is no version. */
export function talosMinor(talosVersion: string): string {
  const talos = SEMVER.exec(talosVersion);
  return talos ? `${talos[1]}.${talos[2]}` : talosVersion;
}

/** The etcd the pinned Talos runs, with its minor; no row when the facts have none for that minor. */
export function talosRunsEtcd(facts: { talosVersion: string; talosEtcd: readonly TalosEtcd[] }): { minor: string; row?: TalosEtcd } {
  const minor = talosMinor(facts.talosVersion);
  const row = facts.talosEtcd.find((r) => r.talos === minor);
  return row ? { minor, row } : { minor };
}
