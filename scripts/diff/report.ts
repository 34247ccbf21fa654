/**
 * The diff as a pull request comment (GitHub Markdown), JSON, plain text, or
 * HTML. A pull request controls every name and value shown, so nothing it
 * controls is ever read as Markdown: names, values and reasons sit in code
 * spans fenced longer than any backtick run inside them, control and
 * direction characters are shown escaped, HTML is escaped, and the plan and
 * the risk counts come first, from the data alone. Past GitHub's comment
 * limit the plan and every risk stay (notes, news only, up to a count); the
 * per-resource changes fold into the full report, which the workflow uploads.
 */
import MarkdownIt from 'markdown-it';
import type { ResourceChange, Risk } from './changes.ts';
import type { ChartBump } from './chart-bumps.ts';
import { isTextChange, textHunks } from './text-diff.ts';
import { isDeletion } from './removals.ts';

/** GitHub refuses a comment over 65,536 characters; the marker and the note need the rest. */
export const MARKDOWN_CAP = 60_000;
/** A risk's reason is shown up to this many characters in the comment (the artifact has it whole). */
const REASON_CAP = 400;

/** An Application that could not be rendered on one side or both, and whether its inputs changed. */
export interface NotJudged {
  app: string;
  cause: string;
  inputsChanged: boolean;
}

/** An Application with changes that its project's sync windows hold back: when Argo CD syncs it on its own. */
export interface HeldBack {
  app: string;
  when: string;
}

export interface Report {
  changes: readonly ResourceChange[];
  risks: readonly Risk[];
  notJudged?: readonly NotJudged[];
  chartBumps?: readonly ChartBump[];
  heldBack?: readonly HeldBack[];
}

/** Lines shown per chart bump in the comment; the full report has them all. */
const BUMP_LINES = 40;

/** Each chart bump: the defaults that moved where the repository sets nothing, and its keys the new version no longer reads. */
function bumpSections(bumps: readonly ChartBump[], cut: boolean): string[] {
  if (!bumps.length) return [];
  const out = [`### ${bumps.length} chart bump(s)`, ''];
  for (const b of bumps) {
    const shown = cut ? b.defaults.slice(0, BUMP_LINES) : b.defaults;
    out.push(
      '<details>',
      `<summary><code>${html(b.app)}</code>: ${html(b.chart)}${b.alias === undefined ? '' : ` as ${code(b.alias)}`}${b.dependencyOf === undefined ? '' : ` (a dependency of ${code(b.dependencyOf)})`} ${html(b.from)} → ${html(b.to)}: ${b.defaults.length} default(s) changed where this repository sets nothing, ${b.unread.length} key(s) it sets no longer read</summary>`,
      '',
      ...b.unread.map((p) => `- **no longer read**: ${code(p)}`),
      ...shown.map((d) => `- ${code(d.path)}: ${code(d.from ?? '(none)')} → ${code(d.to ?? '(none)')}`),
      ...(shown.length < b.defaults.length ? [`- and ${b.defaults.length - shown.length} more, in the full report`] : []),
      '',
      '</details>',
      '',
    );
  }
  return out;
}

/** Control, invisible and direction characters, shown as escapes so no line can hide or reorder another. */
export function visible(text: string): string {
  return text.replace(
    // oxlint-disable-next-line no-control-regex -- control and invisible characters are exactly what this removes from the comment
    /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A code span that no backtick inside can close (CommonMark: a longer fence), safe in a table cell too. */
export function code(text: string, inTable = false): string {
  let s = visible(text);
  if (inTable) s = s.replace(/\|/g, '\\|');
  const longest = Math.max(0, ...[...s.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = s.startsWith('`') || s.endsWith('`') || (s.startsWith(' ') && s.endsWith(' ') && s.trim() !== '') ? ' ' : '';
  return `${fence}${pad}${s || ' '}${pad}${fence}`;
}

const html = (text: string) => visible(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const show = (v: unknown) => (v === undefined ? '(none)' : JSON.stringify(v));

/** A field's change: its old and new value, or, for two texts of several lines, the lines that changed. */
function fieldLines(f: ResourceChange['fields'][number]): string[] {
  const hunks = isTextChange(f.from, f.to) ? textHunks(f.from, f.to as string, '      ') : undefined;
  return hunks ? [`    ${f.path}: (text, the lines that changed)`, ...hunks] : [`    ${f.path}: ${show(f.from)} -> ${show(f.to)}`];
}

function lines(c: ResourceChange): string[] {
  const head = `${c.change === 'added' ? '+' : c.change === 'removed' ? '-' : '~'} ${c.kind} ${c.namespace ? `${c.namespace}/` : ''}${c.name}`;
  return [head, ...c.fields.flatMap(fieldLines)].map(visible);
}

/** A fenced block no line inside can close. */
function fenced(info: string, body: string[]): string {
  const longest = Math.max(2, ...body.flatMap((l) => [...l.matchAll(/`+/g)].map((m) => m[0].length)));
  const fence = '`'.repeat(longest + 1);
  return [`${fence}${info}`, ...body, fence].join('\n');
}

interface PlanRow {
  app: string;
  create: number;
  update: number;
  delete: number;
  replace: number;
  refuse: number;
  /** Removed from the repository and left in the cluster: not pruned, or waiting for a person to confirm the prune. */
  left: number;
}

/**
 * Per Application: objects created, updated in place, deleted, replaced (deleted and created by the sync, as its
 * update is refused and Force=true), refused (the sync fails at them) and left (removed, and not pruned). A refused, replaced or restarting object
 * counts even where only what the diff leaves out as noise changed (a chart's version label in a claim template, a
 * checksum annotation in a pod template).
 */
export function plan(changes: readonly ResourceChange[], risks: readonly Risk[]): PlanRow[] {
  const [replaced, refused] = [risks.filter((r) => r.flag === 'replaced'), risks.filter((r) => r.flag === 'refused')];
  const rows = new Map<string, PlanRow>();
  const row = (app: string) => rows.get(app) ?? rows.set(app, { app, create: 0, update: 0, delete: 0, replace: 0, refuse: 0, left: 0 }).get(app)!;
  const counted = new Set<string>();
  const count = (app: string, id: string, change: ResourceChange['change'], pruned?: ResourceChange['pruned']) => {
    if (counted.has(id)) return;
    counted.add(id);
    const r = row(app);
    if (change === 'added') r.create++;
    else if (change === 'removed') {
      if (pruned === undefined || isDeletion(pruned)) r.delete++;
      // A hook or a Skipped object is never pruned: its removal does nothing to the cluster.
      else if (pruned !== 'never pruned') r.left++;
    } else if (refused.some((x) => x.id === id)) r.refuse++;
    else if (replaced.some((x) => x.id === id)) r.replace++;
    else r.update++;
  };
  for (const c of changes) count(c.app, c.id, c.change, c.pruned);
  // A pod template that changes only in what the field list leaves out as noise (a checksum annotation) is still an update.
  for (const r of [...refused, ...replaced, ...risks.filter((x) => x.flag === 'rollout')]) count(r.app, r.id, 'changed');
  return [...rows.values()].sort((a, b) => a.app.localeCompare(b.app));
}

const totals = (rows: PlanRow[]) =>
  rows.reduce(
    (t, r) => ({
      create: t.create + r.create,
      update: t.update + r.update,
      delete: t.delete + r.delete,
      replace: t.replace + r.replace,
      refuse: t.refuse + r.refuse,
      left: t.left + r.left,
    }),
    { create: 0, update: 0, delete: 0, replace: 0, refuse: 0, left: 0 },
  );

/** The plan's sentence: what a sync does, in each Application's numbers summed. */
const planLine = (t: ReturnType<typeof totals>, apps: number) =>
  `${t.create} to create, ${t.update} to update, ${t.delete} to delete, ${t.replace} to replace${t.refuse ? `, ${t.refuse} refused by the cluster` : ''}${t.left ? `, ${t.left} left in the cluster (not pruned)` : ''}, in ${apps} Application(s)`;

/** The three kinds of risk: refused by the cluster, to review, and notes. */
const byLevel = (risks: readonly Risk[]) => ['refused', 'review', 'note'].map((l) => risks.filter((r) => r.level === l)) as [Risk[], Risk[], Risk[]];

/** What the sync of a refused object does, said once above the list. */
const REFUSED_WHY =
  "The API server refuses these updates, so Argo CD's sync of each Application stops at the object and keeps failing; each line says how to apply it.";

export function text({ changes, risks, notJudged = [], chartBumps = [], heldBack = [] }: Report): string {
  const out: string[] = [];
  const rows = plan(changes, risks);
  const t = totals(rows);
  out.push(`PLAN: ${planLine(t, rows.length)}`);
  for (const r of rows)
    out.push(`  ${visible(r.app)}: +${r.create} ~${r.update} -${r.delete} ±${r.replace}${r.refuse ? ` !${r.refuse}` : ''}${r.left ? ` left ${r.left}` : ''}`);
  out.push('');
  if (heldBack.length)
    out.push(
      `HELD BACK (${heldBack.length}): these do not reach the cluster as soon as they land`,
      ...heldBack.map((h) => `  ${visible(h.app)}: ${visible(h.when)}`),
      '',
    );
  const [refused, review, notes] = byLevel(risks);
  if (refused.length)
    out.push(
      `REFUSED BY THE CLUSTER (${refused.length}): ${REFUSED_WHY.replace(/`/g, '')}`,
      ...refused.map((r) => `  ${visible(r.app)}: ${visible(r.reason)}`),
      '',
    );
  if (review.length)
    out.push(`REVIEW (${review.length}), most severe first`, ...review.map((r) => `  [${r.flag}] ${visible(r.app)}: ${visible(r.reason)}`), '');
  if (notes.length) out.push(`NOTES (${notes.length})`, ...notes.map((r) => `  [${r.flag}] ${visible(r.app)}: ${visible(r.reason)}`), '');
  for (const b of chartBumps)
    out.push(
      `CHART BUMP ${visible(b.app)}: ${visible(b.chart)}${b.alias === undefined ? '' : ` as ${visible(b.alias)}`}${b.dependencyOf === undefined ? '' : ` (a dependency of ${visible(b.dependencyOf)})`} ${visible(b.from)} -> ${visible(b.to)}`,
      ...b.unread.map((p) => `  no longer read: ${visible(p)}`),
      ...b.defaults.map((d) => `  default ${visible(d.path)}: ${visible(d.from ?? '(none)')} -> ${visible(d.to ?? '(none)')}`),
      '',
    );
  if (notJudged.length)
    out.push(
      `NOT JUDGED (${notJudged.length})`,
      ...notJudged.map(
        (n) =>
          `  ${visible(n.app)}: ${visible(n.cause)}${n.inputsChanged ? ' (its inputs changed: this diff cannot vouch for it)' : ' (its inputs are unchanged)'}`,
      ),
      '',
    );
  for (const app of [...new Set(changes.map((c) => c.app))])
    out.push(
      `${visible(app)}:`,
      ...changes
        .filter((c) => c.app === app)
        .flatMap(lines)
        .map((l) => `  ${l}`),
    );
  out.push(
    `${changes.length} resource(s) changed, ${refused.length ? `${refused.length} refused by the cluster, ` : ''}${review.length} risk(s) to review, ${notes.length} note(s)${notJudged.length ? `, ${notJudged.length} Application(s) not judged` : ''}`,
  );
  return out.join('\n');
}

export function json({ changes, risks, notJudged = [], chartBumps = [], heldBack = [] }: Report): string {
  return JSON.stringify({ plan: plan(changes, risks), risks, notJudged, heldBack, chartBumps, changes }, null, 2);
}

/** Risks one line each, grouped by Application (in the order of each's most severe risk), under a title and what it means. */
function riskList(title: string, review: readonly Risk[], cut: boolean, meaning?: string): string[] {
  const out: string[] = [title, '', ...(meaning ? [meaning, ''] : [])];
  for (const app of [...new Set(review.map((r) => r.app))]) {
    out.push(`- ${code(app)}`);
    for (const r of review.filter((x) => x.app === app)) {
      const reason = cut && r.reason.length > REASON_CAP ? `${r.reason.slice(0, REASON_CAP)}…` : r.reason;
      out.push(`  - **${r.flag}**: ${code(reason)}`);
    }
  }
  return [...out, ''];
}

/** Notes shown in a comment past its cap (a chart bump can restart every pod of a stack); the full report has them all. */
const NOTE_LINES = 60;

/** The notes, folded: news a person may read, nothing to decide. */
function noteList(notes: readonly Risk[], cut: boolean): string[] {
  if (!notes.length) return [];
  const shown = cut ? notes.slice(0, NOTE_LINES) : notes;
  return [
    '<details>',
    `<summary>${notes.length} note(s): news only, nothing to review</summary>`,
    '',
    ...shown.map((r) => `- **${r.flag}** in ${code(r.app)}: ${code(cut && r.reason.length > REASON_CAP ? `${r.reason.slice(0, REASON_CAP)}…` : r.reason)}`),
    ...(shown.length < notes.length ? [`- and ${notes.length - shown.length} more, in the full report`] : []),
    '',
    '</details>',
    '',
  ];
}

/** The head of the comment: the plan, every risk, what was not judged. From the data alone, ahead of anything else. */
function head(report: Report, cut: boolean): string {
  const { changes, risks, notJudged = [] } = report;
  const rows = plan(changes, risks);
  const t = totals(rows);
  const [refused, review, notes] = byLevel(risks);
  const parts = ['## Rendered diff', ''];
  parts.push(
    `**Plan:** ${planLine(t, rows.length)}.${refused.length ? ` **${refused.length} update(s) the cluster refuses**,` : ''} **${review.length} risk(s) to review**, ${notes.length} note(s)${notJudged.length ? `, **${notJudged.length} Application(s) not judged**` : ''}.`,
    '',
  );
  // The refused and left columns only where some Application has one.
  const extra = [t.refuse > 0 && (['refused', 'refuse'] as const), t.left > 0 && (['left (not pruned)', 'left'] as const)].filter((c) => c !== false);
  if (rows.length)
    parts.push(
      `| Application | create | update | delete | replace |${extra.map(([title]) => ` ${title} |`).join('')}`,
      `|---|---:|---:|---:|---:|${extra.map(() => '---:|').join('')}`,
      ...rows.map((r) => `| ${code(r.app, true)} | ${r.create} | ${r.update} | ${r.delete} | ${r.replace} |${extra.map(([, key]) => ` ${r[key]} |`).join('')}`),
      '',
    );
  if (refused.length) parts.push(...riskList(`### ⛔ ${refused.length} update(s) the cluster refuses`, refused, cut, REFUSED_WHY));
  if (report.heldBack?.length)
    parts.push(
      `**${report.heldBack.length} Application(s) held back**: their changes do not reach the cluster as soon as they land (sync windows, an ApplicationSet's policy).`,
      '',
      ...report.heldBack.map((h) => `- ${code(h.app)}: ${code(h.when)}`),
      '',
    );
  parts.push(
    ...(review.length ? riskList(`### ⚠️ ${review.length} risk(s) to review, most severe first`, review, cut) : ['Nothing to review.', '']),
    ...noteList(notes, cut),
    ...bumpSections(report.chartBumps ?? [], cut),
  );
  if (notJudged.length) {
    parts.push(`### ${notJudged.length} Application(s) not judged`, '');
    for (const n of notJudged)
      parts.push(
        `- ${code(n.app)}: ${code(n.cause)} ${n.inputsChanged ? '**Its inputs changed: this diff cannot vouch for it.**' : '(its inputs are unchanged)'}`,
      );
    parts.push('');
  }
  return parts.join('\n');
}

function section(app: string, changes: readonly ResourceChange[]): string {
  const mine = changes.filter((c) => c.app === app);
  return [
    '<details>',
    `<summary><code>${html(app)}</code>: ${mine.length} change(s)</summary>`,
    '',
    fenced('diff', mine.flatMap(lines)),
    '',
    '</details>',
    '',
  ].join('\n');
}

/**
 * The comment: the head, then one folded section per Application. Past
 * `cap` characters, the sections that do not fit are left to the full report,
 * and the comment says how many and where (`artifact`, a link).
 */
export function markdown(report: Report, cap = MARKDOWN_CAP, artifact?: string): string {
  const apps = [...new Set(report.changes.map((c) => c.app))];
  const full = `${head(report, false)}\n${apps.map((a) => section(a, report.changes)).join('\n')}`;
  if (full.length <= cap) return full;
  let body = `${head(report, true)}\n`;
  let shown = 0;
  const where = artifact
    ? `[the full report](${artifact.replace(/[()\s<>]/g, encodeURIComponent)}) (Markdown and HTML)`
    : 'the full report (Markdown and HTML) in the workflow artifact `rendered-diff`';
  const note = (left: number) =>
    `\n**${left} Application(s) with changes are not shown here**, to stay under GitHub's comment limit: see ${where}. The plan and every risk above are complete.\n`;
  for (const app of apps) {
    const next = section(app, report.changes);
    if ((body + next + note(apps.length - shown)).length > cap) break;
    body += `${next}\n`;
    shown++;
  }
  return shown === apps.length ? body : body + note(apps.length - shown);
}

/** The full report as a page, for the artifact: the same Markdown, rendered by a CommonMark parser. */
export function htmlPage(report: Report): string {
  const md = new MarkdownIt({ html: true, linkify: false });
  const body = md.render(markdown(report, Infinity));
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Rendered diff</title></head>\n<body>\n${body}</body></html>\n`;
}
