/**
 * alloy-ships-logs beyond its mutations: entries handed on through a loki.process reach the loki.write after it, and a
 * receiver the gate does not follow (a declared component's) is said not judged, not passed.
 */
import { describe, expect, it } from 'vitest';
import { allFindings, runGate } from '../../gate/gate.ts';
import { copyGateOptions, useCopyWith } from '../support/helpers.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../model/repository/repo.ts';

const EVENTS = 'monitoring/alloy-events/values.yaml';
const original = readFileSync(join(REPO_ROOT, EVENTS), 'utf8');
const FORWARD = '        forward_to = [loki.write.default.receiver]\n      }\n';

describe('alloy-ships-logs: a relay, and a receiver not followed', () => {
  const relayed = useCopyWith(
    EVENTS,
    original.replace(
      FORWARD,
      `        forward_to = [loki.process.events.receiver]\n      }\n      loki.process "events" {\n        stage.static_labels {\n          values = { source = "events" }\n        }\n        forward_to = [loki.write.default.receiver]\n      }\n`,
    ),
  );

  it('passes entries handed on through loki.process to the loki.write it forwards to', async () => {
    const result = await runGate(copyGateOptions(relayed().root));
    expect(allFindings(result)).toEqual([]);
    expect(result.notJudged.filter((f) => f.check === 'alloy-ships-logs')).toEqual([]);
  });
});

describe('alloy-ships-logs: a receiver of a declared component', () => {
  const declared = useCopyWith(
    EVENTS,
    original.replace(
      FORWARD,
      `        forward_to = [mine.out.receiver]\n      }\n      declare "mine" {\n        argument "unused" {\n          optional = true\n        }\n      }\n      mine "out" { }\n`,
    ),
  );

  it('is said not judged', async () => {
    const result = await runGate(copyGateOptions(declared().root));
    expect(result.notJudged.filter((f) => f.check === 'alloy-ships-logs').map((f) => f.message)).toEqual([
      'loki.source.kubernetes_events "events" (alloy-events) hands its entries to receivers the gate does not follow to a loki.write',
    ]);
  });
});
