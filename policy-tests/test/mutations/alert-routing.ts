/** Broken copies of the real repository for the checks of policy-tests/checks/alert-routing.ts: each fails exactly its check, at its line. */
import type { Mutation } from '../support/mutation-runner.ts';
import { KPS, CHAT, EVENTS, receiverFieldLine } from './edits.ts';

export const alertRoutingMutations: Mutation[] = [
  {
    check: 'alert-routing',
    why: 'critical alerts without resolved messages',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn([...CHAT, 'send_resolved'], false)),
    at: receiverFieldLine('chat', 'send_resolved'),
  },
  {
    check: 'alert-routing',
    why: 'the event route sends resolved messages',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn([...EVENTS, 'send_resolved'], true)),
    at: receiverFieldLine('chat-events', 'send_resolved'),
  },
  {
    check: 'alert-routing',
    why: 'warnings routed to chat',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn(['alertmanager', 'config', 'route', 'routes', 3, 'matchers'], d.createNode(['severity=~"critical|warning"']))),
    at: '- receiver: chat\n',
  },
];
