/**
 * The deadline jq's programs run under (model/compare/cpu-deadline.ts): a second of CPU, as Argo CD's second on a
 * repo-server with a core to itself, not a second of a clock that a busy machine stretches; the clock still ends a
 * thread that never gets a core.
 */
import { readlinkSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { startCpuDeadline, threadCpuMs } from '../../model/compare/cpu-deadline.ts';

/** A clock, a CPU counter and a timer the test moves by hand: each timer's wait is recorded, and fired on demand. */
function handClock(cpuRead = true) {
  const state = { wall: 0, cpu: cpuRead ? 0 : undefined, waits: [] as number[], expired: 0, fire: () => {} };
  const cancel = startCpuDeadline({
    budgetMs: 1000,
    wallCapMs: 20_000,
    cpuMs: () => state.cpu,
    now: () => state.wall,
    onExpire: () => state.expired++,
    after: (ms, fn) => {
      state.waits.push(ms);
      state.fire = fn;
      return () => (state.fire = () => {});
    },
  });
  const pass = (wallMs: number, cpuMs: number) => {
    state.wall += wallMs;
    if (state.cpu !== undefined) state.cpu += cpuMs;
    state.fire();
  };
  return { state, pass, cancel };
}

describe('startCpuDeadline', () => {
  it('waits out a thread the machine starved: a second of the clock with a tenth of it on a CPU is not the budget spent', () => {
    const { state, pass } = handClock();
    pass(1000, 100);
    expect(state.expired).toBe(0);
    // It sleeps only the CPU time left: the thread cannot spend it sooner.
    expect(state.waits).toEqual([1000, 900]);
    pass(2000, 850);
    expect([state.expired, state.waits.at(-1)]).toEqual([0, 50]);
    pass(100, 50);
    expect(state.expired).toBe(1);
  });

  it('ends a thread that spends its budget in time, and one never run once the clock reaches its bound', () => {
    const spent = handClock();
    spent.pass(1000, 1000);
    expect(spent.state.expired).toBe(1);
    const starved = handClock();
    for (let i = 0; i < 40 && !starved.state.expired; i++) starved.pass(1000, 0);
    expect([starved.state.expired, starved.state.wall]).toEqual([1, 20_000]);
  });

  it('times by the clock where the CPU time cannot be read, and not at all once cancelled', () => {
    const unread = handClock(false);
    unread.pass(1000, 0);
    expect(unread.state.expired).toBe(1);
    const cancelled = handClock();
    cancelled.cancel();
    cancelled.pass(30_000, 5000);
    expect(cancelled.state.expired).toBe(0);
  });
});

const onLinux = (() => {
  try {
    return threadCpuMs(readlinkSync('/proc/thread-self')) !== undefined;
  } catch {
    return false;
  }
})();

/** A thread that names itself in /proc, then sleeps or spins for `ms` of the clock when told. */
const THREAD = `
const { parentPort } = require('node:worker_threads');
parentPort.postMessage(require('node:fs').readlinkSync('/proc/thread-self'));
parentPort.on('message', ({ ms, spin }) => {
  const end = Date.now() + ms;
  if (spin) while (Date.now() < end);
  else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  parentPort.postMessage('done');
});`;

describe.skipIf(!onLinux)('threadCpuMs', () => {
  it("reads one thread's CPU time, not the clock's: a thread asleep spends none, one spinning spends it", async () => {
    const worker = new Worker(THREAD, { eval: true });
    try {
      const next = () => new Promise<string>((resolve) => worker.once('message', resolve));
      const task = await next();
      const spentOn = async (job: { ms: number; spin: boolean }) => {
        const before = threadCpuMs(task)!;
        worker.postMessage(job);
        await next();
        return threadCpuMs(task)! - before;
      };
      expect(await spentOn({ ms: 300, spin: false })).toBeLessThan(100);
      // A spinning thread runs whenever the machine gives it a core: some CPU time, never more than the clock's.
      const spun = await spentOn({ ms: 300, spin: true });
      expect(spun).toBeGreaterThan(0);
      expect(spun).toBeLessThan(300 + 50);
    } finally {
      await worker.terminate();
    }
  });
});
