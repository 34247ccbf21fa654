/**
 * argocd-cm's health scripts run as Argo CD runs them (util/lua/lua.go at v3.5.1): its libraries and no others, the
 * object as `obj`, the returned table read as a health status, and a script that never ends or reaches for a file
 * stopped.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { runHealthLua } from '../../model/compare/health-lua.ts';
import { REPO_ROOT } from '../../model/repository/repo.ts';

const app = (health?: string) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Application',
  metadata: { name: 'child' },
  ...(health ? { status: { health: { status: health, message: 'because' } } } : {}),
});

describe('runHealthLua', () => {
  it("runs the repository's script for Applications: each child's own health, Progressing before it has one", () => {
    const cm = parse(readFileSync(join(REPO_ROOT, 'apps/platform/argocd/patches/argocd-cm.yaml'), 'utf8')) as { data: Record<string, string> };
    const script = cm.data['resource.customizations.health.argoproj.io_Application']!;
    for (const status of ['Healthy', 'Progressing', 'Degraded', 'Suspended', 'Missing'])
      expect(runHealthLua(script, app(status))).toEqual({ status, message: 'because' });
    expect(runHealthLua(script, app())).toEqual({ status: 'Progressing', message: '' });
  });

  it("gives a script Argo CD's libraries only: string and math with useOpenLibs, os's time and date, require of os alone", () => {
    expect(runHealthLua('return {status = string.upper("healthy")}', app())).toEqual({
      error: expect.stringMatching(/attempt to index a nil value \(global 'string'\)/),
    });
    expect(runHealthLua('return {status = string.gsub("Xealthy", "X", "H")}', app(), true)).toEqual({ status: 'Healthy', message: '' });
    expect(runHealthLua('local os = require("os") return {status = "Healthy", message = os.date("%Y", 0)}', app())).toEqual({
      status: 'Healthy',
      message: '1970',
    });
    for (const escape of ['require("io")', 'dofile("/etc/passwd")', 'loadfile("/etc/passwd")', 'os.execute("true")', 'os.getenv("HOME")'])
      expect(runHealthLua(escape, app())).toEqual({ error: expect.any(String) });
  });

  it("reads as gopher-lua (Lua 5.1) reads: a whole number prints without a point, and 5.1's table.getn and unpack are there", () => {
    // (fengari's integers are 32 bits: a whole number past them is a float, printed as 5000000000.0, docs/design.md.)
    const counted = { ...app(), status: { readyReplicas: 2, replicas: 3, ratio: 0.5 } };
    expect(
      runHealthLua('return {status = "Progressing", message = obj.status.readyReplicas .. "/" .. obj.status.replicas .. " " .. obj.status.ratio}', counted),
    ).toEqual({ status: 'Progressing', message: '2/3 0.5' });
    expect(runHealthLua('local t = {"a", "b"} local x, y = unpack(t) return {status = "Healthy", message = table.getn(t) .. x .. y}', app())).toEqual({
      status: 'Healthy',
      message: '2ab',
    });
  });

  it('reads the returned table as Argo CD does: an unknown status is Unknown, nil is none, another type an error', () => {
    expect(runHealthLua('return {status = "Fine"}', app())).toEqual({
      status: 'Unknown',
      message: 'Lua returned an invalid health status',
      unknownStatus: 'Fine',
    });
    expect(runHealthLua('return nil', app())).toEqual({ status: '', message: '' });
    expect(runHealthLua('return 5', app())).toEqual({ error: 'the script returns a number, where Argo CD takes a table' });
    expect(runHealthLua('hs = {} if obj.status ~= nil then', app())).toEqual({ error: expect.stringMatching(/'end' expected near <eof>/), unloaded: true });
  });

  it('stops a script that never ends, as Argo CD stops one at 1 s, and one that grows without end', () => {
    expect(runHealthLua('while true do end', app())).toEqual({ error: 'the script did not end' });
    expect(runHealthLua('local t = {} for i = 1, 1e9 do t[i] = i end', app())).toEqual({
      error: expect.stringMatching(/^the script (did not end|took more memory than a health script needs)$/),
    });
  });

  it('stops a script that asks for memory no health script needs: doubling a string, or string.rep past its bound', () => {
    expect(runHealthLua('local s = "x" for i = 1, 40 do s = s .. s end return {}', app())).toEqual({
      error: 'the script took more memory than a health script needs',
    });
    expect(runHealthLua('return {status = "Healthy", message = string.rep("x", 1e9)}', app(), true)).toEqual({
      error: expect.stringMatching(/string\.rep: a result past the 16 MiB a health script is given$/),
    });
    // Within it, string.rep is Lua's own.
    expect(runHealthLua('return {status = "Healthy", message = string.rep("ab", 3, "-")}', app(), true)).toEqual({ status: 'Healthy', message: 'ab-ab-ab' });
  });
});
