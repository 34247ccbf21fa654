/**
 * Go's text/template with sprig, as Argo CD's ApplicationSet controller renders a `goTemplate` ApplicationSet's
 * strings: run by the real engine, the one the pinned Helm carries (Go's text/template, sprig v3), through Helm's
 * `tpl` with each parameter set as the data. No JavaScript port of Go's templates and sprig is kept well enough to
 * trust; Helm's engine is the same code Argo CD links. Where the two engines differ (Helm writes nothing for a key
 * the data lacks; each has functions the other has not), model/appset/template.ts says so before a string comes here.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { GoTemplateJob } from '../model/appset/expand.ts';
import { firstLines, renderToolEnv } from './context.ts';
import { renderLimits } from './limits.ts';
import { renderTools } from './tools.ts';

const run = promisify(execFile);

/** One document: the jobs' outputs, in order, as one JSON list (Helm's `toJson` of what `tpl` wrote for each). */
const TEMPLATE = `{{- $out := list }}
{{- range .Values.jobs }}{{ $out = append $out (tpl .t .p) }}{{ end }}
{{- toJson (dict "out" $out) }}
`;

/**
 * An error of the gate's own (a limit met, the tool missing, an answer it cannot read), not the template's: what
 * Argo CD makes of the template is then not known (model/appset/renderer.ts: not judged).
 */
function gatesOwn(message: string): Error {
  return Object.assign(new Error(message), { gate: true });
}

/** Each job's text, rendered by Go's engine; throws one line with the engine's own error. */
export async function renderGoTemplates(jobs: readonly GoTemplateJob[], env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  if (jobs.length === 0) return [];
  let tools: Awaited<ReturnType<typeof renderTools>>;
  let limits: ReturnType<typeof renderLimits>;
  try {
    [tools, limits] = [await renderTools(env), renderLimits(env)];
  } catch (err) {
    throw gatesOwn(`Go's template engine (helm) is not at hand: ${(err as Error).message}`);
  }
  const chart = mkdtempSync(join(tmpdir(), 'homelab-gotemplate-'));
  try {
    mkdirSync(join(chart, 'templates'));
    writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: applicationset\nversion: 0.0.0\n');
    writeFileSync(join(chart, 'templates', 'render.yaml'), TEMPLATE);
    writeFileSync(join(chart, 'jobs.json'), JSON.stringify({ jobs: jobs.map((j) => ({ t: j.template, p: j.params })) }));
    let stdout: string;
    try {
      ({ stdout } = await run(tools.helm, ['template', 'applicationset', chart, '--values', join(chart, 'jobs.json')], {
        env: renderToolEnv(env),
        cwd: chart,
        encoding: 'utf8',
        maxBuffer: limits.outputBytes,
        timeout: limits.timeoutMs,
        killSignal: 'SIGKILL',
      }));
    } catch (err) {
      const e = err as { stderr?: string; message: string; killed?: boolean; signal?: string; code?: string };
      if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
        throw gatesOwn(`Go's template engine (helm) printed more than ${limits.outputBytes / 1024 / 1024} MiB (HOMELAB_RENDER_MAX_OUTPUT_MIB); killed`);
      if (e.killed || e.signal === 'SIGKILL')
        throw gatesOwn(`Go's template engine (helm) did not finish within ${limits.timeoutMs / 1000} s (HOMELAB_RENDER_TIMEOUT); killed`);
      const said = firstLines(e.stderr || e.message);
      // Only tpl's own error is the template's (Helm's frame around it says nothing of the ApplicationSet); any other is the gate's.
      if (!said.includes('error calling tpl: ')) throw gatesOwn(`Go's template engine (helm) failed: ${said}`);
      throw new Error(said.replace(/^.*?error calling tpl: /, ''));
    }
    let out: unknown;
    try {
      out = (JSON.parse(stdout.slice(stdout.indexOf('{'))) as { out?: unknown }).out;
    } catch {
      out = undefined;
    }
    if (!Array.isArray(out) || out.length !== jobs.length)
      throw gatesOwn(`Go's template engine (helm) answered what the gate cannot read for ${jobs.length} strings`);
    return out.map(String);
  } finally {
    rmSync(chart, { recursive: true, force: true });
  }
}
