/**
 * volsync-schedule: VolSync can run each replication on its schedule. Its controller reads `spec.trigger.schedule`
 * with robfig/cron's standard parser (statemachine/machine.go, getSchedule: five fields or a descriptor) only after
 * the first sync, to set the next one: a schedule it cannot parse leaves that first copy the last, the object stuck
 * in an error condition; and one that never fires sets the next sync to Go's zero time, which is always past, so the
 * mover runs back to back without end. The CRD's pattern takes both (`0 25 * * *` is five fields of digits).
 *
 * getTrigger takes a manual tag over the schedule, which it then never reads (a schedule left beside a manual tag is
 * dead: backube/volsync#1259), and a ReplicationSource with neither runs in a tight loop (shouldSync's noTrigger: "we
 * run in a tight loop, immediately synchronizing as soon as we finish cleanup"). A ReplicationDestination with
 * neither is how an rsync destination waits for its source, and is not judged so.
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { neverFires, parseStandard } from '../../model/cron/robfig.ts';
import { dig, isMap } from '../../model/core/dig.ts';

type Obj = Record<string, any>;

const REPLICATION_KINDS = ['ReplicationSource', 'ReplicationDestination'];

export const volsyncScheduleCheck: PolicyCheck = {
  id: 'volsync-schedule',
  description:
    "Every VolSync ReplicationSource and ReplicationDestination with a schedule (and no manual trigger, which VolSync prefers) has one its controller parses (robfig/cron's standard parser: five fields or a descriptor), without which it copies once and then stops in an error condition, and one that fires, without which it copies back to back without end; none has a manual trigger beside a schedule, which VolSync then never reads; and every ReplicationSource has a trigger, without which it copies in a tight loop without end (B3).",
  invariants: ['B3'],
  remediation:
    'write the schedule as five fields (minute 0-59, hour 0-23, day 1-31, month 1-12, day of week 0-6) or a descriptor such as @daily, on days its months have',
  reads: { kinds: REPLICATION_KINDS },
  exemptible: false,
  run(ctx) {
    for (const r of ctx.resources) {
      if (!REPLICATION_KINDS.includes(r.kind) || !r.apiVersion.startsWith('volsync.backube/')) continue;
      const trigger = ((r.object.spec as Obj | undefined)?.trigger ?? {}) as Obj;
      const manual = typeof trigger.manual === 'string' && trigger.manual !== '';
      const scheduled = typeof trigger.schedule === 'string' && trigger.schedule !== '';
      // getTrigger: a manual tag wins over the schedule, which is then never read.
      if (manual && scheduled)
        ctx.fail(
          { resource: r, path: ['spec', 'trigger', 'manual'] },
          `${r.kind} ${r.name} has a manual trigger ("${String(trigger.manual)}") beside its schedule: VolSync takes the manual one and never reads the schedule, so it copies once per new manual tag and never on "${String(trigger.schedule)}"`,
          'remove the manual trigger once its copy is done, or the schedule if the copies are meant to be by hand',
        );
      if (manual) continue;
      if (!scheduled) {
        if (r.kind === 'ReplicationSource')
          ctx.fail(
            { resource: r, path: ['spec', ...(isMap(dig(r.object, ['spec', 'trigger'])) ? ['trigger'] : [])] },
            `${r.kind} ${r.name} has no trigger (no schedule, no manual tag): VolSync copies in a tight loop, each copy starting as soon as the last one is cleaned up, without end`,
            'give it a schedule (spec.trigger.schedule, such as "0 3 * * *"), or a manual tag for copies by hand',
          );
        continue;
      }
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
