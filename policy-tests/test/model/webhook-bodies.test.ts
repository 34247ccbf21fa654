import { describe, expect, it } from 'vitest';
import { fillBody, fillText, renderProxmox } from '../../model/monitoring/webhook-bodies.ts';

describe('webhook bodies as their senders fill them in', () => {
  it("renders as proxmox-notify does: its own webhook test's template gives its expected body", () => {
    // The case of test_build_request in proxmox-notify's webhook endpoint: no escaping, and its three helpers.
    const template =
      '\n{{ fields.test }}\n{{ escape fields.test }}\n\n{{ json fields }}\n{{ json fields.hello }}\n\n{{ url-encode fields.hello }}\n\n{{ json severity }}\n\n';
    const data = { title: '', message: '', severity: 'info', timestamp: 0, fields: { hello: 'hello world', test: 'escaped\nstring' }, secrets: {} };
    expect(renderProxmox(template, data)).toBe(
      '\nescaped\nstring\nescaped\\nstring\n\n{"hello":"hello world","test":"escaped\\nstring"}\n"hello world"\n\nhello%20world\n\n"info"\n\n',
    );
    expect(renderProxmox('http://localhost/{{ url-encode fields.hello }}', data)).toBe('http://localhost/hello%20world');
    // Its url-encode escapes the reserved characters and non-ASCII, and leaves the rest.
    expect(renderProxmox('{{ url-encode fields.x }}', { fields: { x: 'a/b?c=d&e!\'(*)~"ø' } })).toBe('a%2Fb%3Fc%3Dd%26e%21%27%28%2A%29~"%C3%B8');
  });

  it('an unescaped message breaks the JSON, and escape keeps it', () => {
    const broken = fillBody([{ labels: { alertname: 'X' }, annotations: { summary: '{{ title }}: {{ message }}' } }], 'proxmox-notify');
    expect(broken.data).toBeUndefined();
    expect(broken.problems).toEqual([{ path: [0, 'annotations', 'summary'], why: expect.stringContaining('is no JSON string once filled in') }]);
    const kept = fillBody(
      [{ labels: { alertname: 'X', node: '{{ escape fields.hostname }}' }, annotations: { summary: '{{ escape message }}' } }],
      'proxmox-notify',
    );
    expect(kept.problems).toEqual([]);
    expect(kept.data).toEqual([{ labels: { alertname: 'X', node: 'pve1' }, annotations: { summary: expect.stringContaining('\n101\t"db"\terr') } }]);
  });

  it('a name the notification lacks renders empty and is said; an unknown helper fails the notification', () => {
    const missing = fillBody([{ labels: { node: '{{ node }}' } }], 'proxmox-notify');
    expect(missing.data).toEqual([{ labels: { node: '' } }]);
    expect(missing.problems).toEqual([{ path: [0, 'labels', 'node'], why: expect.stringContaining('reads {{ node }}, a name no notification has') }]);
    expect(fillBody(['{{ upper title }}'], 'proxmox-notify').problems).toEqual([{ path: [0], why: expect.stringContaining('fails to render') }]);
  });

  it("DSM puts its event text where @@TEXT@@ stands, leaves Handlebars' braces alone, and its escaping is not judged", () => {
    expect(fillText('{"summary": "@@TEXT@@ {{ x }}"}', 'dsm')).toBe('{"summary": "Drive 3 in nas is degraded. Please replace it. {{ x }}"}');
    // How DSM escapes its text is not documented: said once per body, never a pass or a failure.
    const nas = fillBody([{ labels: { event: '@@TEXT@@' }, annotations: { summary: '@@TEXT@@' } }], 'dsm');
    expect(nas.problems).toEqual([]);
    expect(nas.notJudged).toEqual([{ path: [0, 'labels', 'event'], why: expect.stringContaining('DSM does not document') }]);
    expect(fillBody([{ labels: { alertname: 'X' } }], 'dsm').notJudged).toEqual([]);
  });
});
