/**
 * A webhook body as its sender fills it in, before Alertmanager parses it (invariant A9). The payload files are
 * templates: what arrives is the sender's rendering of them, so a template that is JSON on disk can still post a
 * body Alertmanager refuses.
 *
 * - `proxmox-notify`: the hypervisor's and its backup server's webhook target (Proxmox VE 8.3 and later, Proxmox
 *   Backup Server 3.3 and later, one shared crate). Its `build_request` renders the body with Handlebars and
 *   **no escaping at all** (`register_escape_fn(no_escape)`), from `title`, `message`, `severity`, `timestamp`,
 *   `fields` (every event has `hostname` and `type`) and `secrets`, with the helpers `escape` (the text as the
 *   inside of a JSON string), `json` and `url-encode`. A missing name renders empty; an unknown helper fails the
 *   notification. Rendered here with handlebars.js under the same settings and helpers.
 * - `dsm`: the NAS's custom webhook puts the event text where `@@TEXT@@` stands. Whether DSM escapes it is not
 *   documented, so the sample texts are plain lines, and only the template's own shape is judged.
 */
import { createRequire } from 'node:module';
import type { Path } from '../core/positions.ts';
import { outcomeStore, packageVersion } from '../stores/outcome-store.ts';

export type BodyFiller = 'proxmox-notify' | 'dsm';

/**
 * What a notification hands the template: a backup failure, as the hypervisor words it. Its message is the
 * plain-text report, several lines with quotes in them, which is what a template must survive.
 */
const BACKUP_FAILED = {
  title: 'vzdump backup status (pve1.lan.example.net): backup failed',
  message: [
    'Details',
    '=======',
    'VMID\tName\tStatus\tTime\tSize',
    '101\t"db"\terr\t3s\t0 B',
    '',
    'Logs',
    '====',
    "101: ERROR: Backup of VM 101 failed - unable to open file '/mnt/pve/nas/dump/vzdump-qemu-101.tmp' - Permission denied \\ retry later",
  ].join('\n'),
  severity: 'error',
  timestamp: 1_764_378_000,
  fields: { hostname: 'pve1', type: 'vzdump' },
  secrets: {},
};

/**
 * Two events of each sender, told apart only as the sender tells them apart: the hypervisor's second is another
 * backup job failing on the same host an hour later (same title), the NAS's another text.
 */
const PROXMOX_NOTIFICATIONS = [
  BACKUP_FAILED,
  {
    ...BACKUP_FAILED,
    message: BACKUP_FAILED.message.replaceAll('101', '102').replace('"db"', '"web"'),
    timestamp: BACKUP_FAILED.timestamp + 3600,
  },
];
const DSM_TEXTS = ['Drive 3 in nas is degraded. Please replace it.', 'Volume 1 on nas has entered read-only mode.'];

/** Which of the two sample events a sender fills in. */
export type SampleEvent = 0 | 1;

type HandlebarsModule = typeof import('handlebars');
type Handlebars = ReturnType<HandlebarsModule['create']>;

let proxmox: Handlebars | undefined;

/** The bytes proxmox-notify's `url-encode` escapes besides controls and non-ASCII (its FRAGMENT set). */
const URL_RESERVED = new Set(Buffer.from(":/?#[]@!$&'()*+,;=% "));

function percentEncode(s: string): string {
  return [...Buffer.from(s, 'utf8')]
    .map((b) => (b < 0x20 || b >= 0x7f || URL_RESERVED.has(b) ? `%${b.toString(16).toUpperCase().padStart(2, '0')}` : String.fromCharCode(b)))
    .join('');
}

/**
 * Handlebars set up as proxmox-notify sets it up; loaded on first use, since only this check reads it, and from the
 * release's one-file build, which loads in a third of the time of its module tree (6 ms against 17 here).
 */
function proxmoxHandlebars(): Handlebars {
  if (proxmox) return proxmox;
  const handlebars = (createRequire(import.meta.url)('handlebars/dist/handlebars.min.js') as HandlebarsModule).create();
  const text = (helper: string, v: unknown) => {
    if (typeof v !== 'string') throw new Error(`${helper}: missing text parameter`);
    return v;
  };
  handlebars.registerHelper('escape', (v: unknown) => JSON.stringify(text('escape', v)).slice(1, -1));
  handlebars.registerHelper('json', (v: unknown) => JSON.stringify(v));
  handlebars.registerHelper('url-encode', (v: unknown) => percentEncode(text('url-encode', v)));
  return (proxmox = handlebars);
}

/** Compiled templates, by strictness and text: a body is filled in for two events and checked once strictly. */
const compiled = new Map<string, (data: object) => string>();

function compile(template: string, strict: boolean): (data: object) => string {
  const id = `${strict ? 's' : 'n'}\0${template}`;
  let render = compiled.get(id);
  if (!render) compiled.set(id, (render = proxmoxHandlebars().compile(template, { noEscape: true, strict })));
  return render;
}

/** `template` rendered as proxmox-notify renders a webhook's body, URL or header from a notification's data. */
export function renderProxmox(template: string, data: object): string {
  return compile(template, false)(data);
}

/** The raw text `template` becomes once the sender fills `event` in; throws where the sender fails to render it. */
export function fillText(template: string, filler: BodyFiller, event: SampleEvent = 0): string {
  return filler === 'dsm' ? template.replaceAll('@@TEXT@@', DSM_TEXTS[event]!) : renderProxmox(template, PROXMOX_NOTIFICATIONS[event]!);
}

/** A name the template reads that the notification does not have (it renders empty), or undefined. */
function missingName(template: string, filler: BodyFiller): string | undefined {
  if (filler === 'dsm') return undefined;
  try {
    compile(template, true)(BACKUP_FAILED);
    return undefined;
  } catch (err) {
    return /^"([^"]+)" not defined/.exec((err as Error).message)?.[1];
  }
}

export interface FilledBody {
  /** The body Alertmanager parses, or undefined when it is no JSON. */
  data?: unknown;
  problems: { path: Path; why: string }[];
  /** What the sample cannot show: where DSM's text stands, whose escaping DSM does not document. */
  notJudged: { path: Path; why: string }[];
}

const DSM_ESCAPING =
  'DSM does not document how it writes a quote, a backslash or a newline of its text into the body: a NAS text holding one may make the body no JSON, and Alertmanager would refuse it';

const NOTIFICATION_NAMES = 'title, message, severity, timestamp, fields.hostname, fields.type, secrets.<name>';

/** What a body filled in to before, keyed by Handlebars' version, the sender, the event and the template's text. */
const filledBodies = outcomeStore<FilledBody>('webhook-bodies', () => packageVersion('handlebars'));

/**
 * `template` (the payload file, parsed as JSON with the placeholders inside its strings) as the sender fills it in:
 * each string is rendered as it stands in the file, and must still be a JSON string afterwards. Paths point into the
 * template, whose shape the body keeps.
 */
export function fillBody(template: unknown, filler: BodyFiller, event: SampleEvent = 0): FilledBody {
  const whole = JSON.stringify(template);
  // A warm run whose payloads did not change neither loads Handlebars nor renders (10 ms of a start-up).
  const inputs = [filler, String(event), whole];
  const stored = filledBodies.get(inputs);
  if (stored) return stored;
  const filled = fillAnew(template, whole, filler, event);
  filledBodies.set(inputs, filled);
  return filled;
}

function fillAnew(template: unknown, whole: string, filler: BodyFiller, event: SampleEvent): FilledBody {
  // The usual case in one rendering of the whole file; only a body that fails is gone through string by string, for where.
  if (filler === 'proxmox-notify')
    try {
      const data = JSON.parse(fillText(whole, filler, event)) as unknown;
      if (!missingName(whole, filler)) return { data, problems: [], notJudged: [] };
    } catch {
      // found again below, with its place
    }
  const problems: FilledBody['problems'] = [];
  const notJudged: FilledBody['notJudged'] = [];
  const fill = (value: unknown, path: Path): unknown => {
    if (Array.isArray(value)) return value.map((v, i) => fill(v, [...path, i]));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, [...path, k])]));
    if (typeof value !== 'string') return value;
    const raw = JSON.stringify(value).slice(1, -1);
    // Once per body, at the first place the text stands: one unknown, however many places.
    if (filler === 'dsm' && raw.includes('@@TEXT@@') && notJudged.length === 0) notJudged.push({ path, why: DSM_ESCAPING });
    let text: string;
    try {
      text = fillText(raw, filler, event);
    } catch (err) {
      problems.push({ path, why: `fails to render (${(err as Error).message.split('\n')[0]}), so the sender posts nothing` });
      return value;
    }
    const missing = missingName(raw, filler);
    if (missing) problems.push({ path, why: `reads {{ ${missing} }}, a name no notification has (it has ${NOTIFICATION_NAMES}), so it renders empty` });
    try {
      return JSON.parse(`"${text}"`) as unknown;
    } catch {
      problems.push({
        path,
        why: `is no JSON string once filled in (a newline or a quote of the text goes in unescaped), so Alertmanager refuses the body (HTTP 400): write {{ escape <name> }}`,
      });
      return undefined;
    }
  };
  const data = fill(template, []);
  return problems.some((p) => p.why.startsWith('is no JSON')) ? { problems, notJudged } : { data, problems, notJudged };
}
