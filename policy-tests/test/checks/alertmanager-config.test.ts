/** alertmanager-config-loads on a broken copy of the real repository; what Alertmanager takes passes, and an integration it does not port is said not judged. */
import { describe, expect, it } from 'vitest';
import { onBrokenCopy } from '../support/helpers.ts';
import { describeMutations } from '../support/mutation-runner.ts';
import { swap } from '../mutations/edits.ts';
import type { RepoCopy } from '../support/helpers.ts';
import { alertmanagerConfigMutations } from '../mutations/alertmanager-config.ts';

const VALUES = 'monitoring/kube-prometheus-stack/values.yaml';
const CHECK = 'alertmanager-config-loads';

describeMutations('alertmanager-config-loads bites on a broken copy of the real repository', alertmanagerConfigMutations);

describe('alertmanager-config-loads', () => {
  it('passes a wildcard group_by, a time interval a route names, and a templated webhook URL', async () => {
    const takes = (c: RepoCopy) => {
      swap(VALUES, '      group_by: [alertname, namespace]\n', "      group_by: ['...']\n")(c);
      swap(VALUES, '        - receiver: chat-app-a\n', '        - receiver: chat-app-a\n          active_time_intervals: [always]\n')(c);
      swap(VALUES, '    receivers:\n', '    time_intervals:\n      - name: always\n        time_intervals: []\n    receivers:\n')(c);
    };
    expect(await onBrokenCopy(CHECK, takes)).toEqual({ failed: [], warned: [], notJudged: [] });
  });

  it('says an integration whose fields it does not port is not judged', async () => {
    const email = swap(VALUES, '      - name: "null"\n', '      - name: "null"\n        email_configs:\n          - to: ops@example.net\n');
    const { failed, notJudged } = await onBrokenCopy(CHECK, email);
    expect(failed).toEqual([]);
    expect(notJudged).toEqual([expect.stringContaining('receivers.0.email_configs: the fields of this integration are not judged')]);
  });

  it("never quotes a receiver's URL, which carries its token", async () => {
    const broken = swap(
      VALUES,
      '          - url: https://watchdog.homelab.example.net/heartbeat\n',
      '          - url: "https://hooks example.net/T0KEN-s3cret"\n',
    );
    const { failed } = await onBrokenCopy(CHECK, broken);
    expect(failed.map((f) => f.message)).toEqual([expect.stringContaining('parse <secret>: invalid URL')]);
    expect(failed[0]!.message).not.toContain('s3cret');
  });
});
