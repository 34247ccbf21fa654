/**
 * volsync-schedule: VolSync can run each replication on its schedule. Its controller reads `spec.trigger.schedule`
 * with robfig/cron's standard parser (statemachine/machine.go, getSchedule: five fields or a descriptor) only after
 * the first sync, to set the next one: a schedule it cannot parse leaves that first copy the last, the object stuck
 * in an error condition; and one that never fires sets the next sync to Go's zero time, which is always past, so the
 * mover runs back to back without end. The CRD's pattern takes both (`0 25 * * *` is five fields of digits).
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { neverFires, parseStandard } from '../../model/cron/robfig.ts';

type Obj = Record<string, any>;

const REPLICATION_KINDS = ['ReplicationSource', 'ReplicationDestination'];

export const volsyncScheduleCheck: PolicyCheck = {
  id: 'volsync-schedule',
  description:
    "Every VolSync ReplicationSource and ReplicationDestination with a schedule (and no manual trigger, which VolSync prefers) has one its controller parses (robfig/cron's standard parser: five fields or a descriptor), without which it copies once and then stops in an error condition, and one that fires, without which it copies back to back without end (B3).",
  invariants: ['B3'],
  remediation:
    'write the schedule as five fields (minute 0-59, hour 0-23, day 1-31, month 1-12, day of week 0-6) or a descriptor such as @daily, on days its months have',
  reads: { kinds: REPLICATION_KINDS },
  exemptible: false,
  run(ctx) {
    for (const r of ctx.resources) {
      if (!REPLICATION_KINDS.includes(r.kind) || !r.apiVersion.startsWith('volsync.backube/')) continue;
      const trigger = ((r.object.spec as Obj | undefined)?.trigger ?? {}) as Obj;
      // getTrigger: a manual tag wins over the schedule, which is then never read.
      if (typeof trigger.manual === 'string' && trigger.manual !== '') continue;
      if (typeof trigger.schedule !== 'string' || trigger.schedule === '') continue;
      const parsed = parseStandard(trigger.schedule);
      const at = { resource: r, path: ['spec', 'trigger', 'schedule'] };
      if (!parsed.ok)
        ctx.fail(
          at,
          `${r.kind} ${r.name}: VolSync cannot parse its schedule "${trigger.schedule}" (${parsed.error}): it copies once, then stops in an error condition and never copies again`,
        );
      else if (neverFires(parsed.schedule))
        ctx.fail(
          at,
          `${r.kind} ${r.name}: its schedule "${trigger.schedule}" names only days its months never have, so VolSync's next sync time is Go's zero time, always past: the mover copies back to back without end`,
        );
    }
  },
};
