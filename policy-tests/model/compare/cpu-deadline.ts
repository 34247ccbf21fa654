/**
 * A deadline on the CPU time one thread has run, where Linux tells it. Argo CD bounds a jq program by the clock on its
 * own repo-server, where the program has a core to itself; the gate runs on a machine it shares (CI's two cores and
 * the test workers on them, a laptop compiling), where a program that ends in a tenth of a second can wait seconds for
 * a core. Timed by the clock here, it would read as "did not end in 1 s", and the verdict would change with the
 * machine's load. Timed by the CPU the thread spent, it reads as it would on the repo-server: the clock only wakes
 * the check, and a bound on the clock (many times the budget) still ends a thread the machine never runs.
 */
import { readFileSync } from 'node:fs';

/**
 * The milliseconds a thread has run (`task` as /proc/thread-self names it: "<pid>/task/<tid>"), from the kernel's
 * scheduler statistics (its first field, nanoseconds on a CPU); undefined where they cannot be read (another system, a
 * kernel without them). A read of /proc is a copy from the kernel's memory, not a wait on a disk.
 */
export function threadCpuMs(task: string): number | undefined {
  try {
    const ns = Number(readFileSync(`/proc/${task}/schedstat`, 'utf8').split(' ')[0]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

export interface CpuDeadline {
  /** The CPU time the thread may spend from now. */
  budgetMs: number;
  /** The clock's bound whatever it spent: a thread starved of a core still ends. */
  wallCapMs: number;
  /** The thread's CPU time so far; undefined where it cannot be read, and the clock alone decides. */
  cpuMs: () => number | undefined;
  onExpire: () => void;
  /** The clock and its timer; performance.now and setTimeout unless a test gives its own. */
  now?: () => number;
  after?: (ms: number, fn: () => void) => () => void;
}

const afterMs = (ms: number, fn: () => void) => {
  const timer = setTimeout(fn, ms);
  return () => clearTimeout(timer);
};

/** Calls onExpire once the thread has spent its budget since the call, or once the clock reaches its bound; returns a cancel. */
export function startCpuDeadline(d: CpuDeadline): () => void {
  const now = d.now ?? (() => performance.now());
  const after = d.after ?? afterMs;
  const wall0 = now();
  const cpu0 = d.cpuMs();
  const check = () => {
    const wall = now() - wall0;
    const cpu = cpu0 === undefined ? undefined : d.cpuMs();
    const spent = cpu === undefined ? wall : cpu - (cpu0 ?? 0);
    if (spent >= d.budgetMs || wall >= d.wallCapMs) return d.onExpire();
    // The thread cannot spend its budget sooner than the CPU time it has left, so the check sleeps that long.
    cancel = after(Math.max(1, Math.min(d.budgetMs - spent, d.wallCapMs - wall)), check);
  };
  let cancel = after(d.budgetMs, check);
  return () => cancel();
}
