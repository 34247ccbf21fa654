/**
 * The systems outside the cluster that push alerts to Alertmanager (invariant A9): the NAS, the hypervisor and its
 * backup server. Each is set up on its own side (DSM's webhook, the hypervisor's notification target), so the
 * repository records what each is set to send, and where, in `payloads/senders.yaml`, beside the exact bodies it
 * sends. Read here as Alertmanager's API reads a push: `POST /api/v2/alerts`, a JSON array of postable alerts
 * (labels required, annotations, startsAt, endsAt and generatorURL optional, every label and annotation a string).
 */
import { dig } from '../core/dig.ts';
import type { Path } from '../core/positions.ts';
import type { DataFile, Repo } from '../repository/repo.ts';

export const PAYLOADS_DIR = 'monitoring/kube-prometheus-stack/payloads/';
export const SENDERS_FILE = `${PAYLOADS_DIR}senders.yaml`;
/** Where Alertmanager takes pushed alerts (API v2; v1 is gone since Alertmanager 0.27). */
export const ALERTS_API_PATH = '/api/v2/alerts';

export interface WebhookSender {
  name: string;
  url?: string;
  contentType?: string;
  payload?: string;
  minimumLevel?: string;
  /** Where the sender's entry sits in SENDERS_FILE. */
  at: Path;
}

/** The senders the file records, and the file; undefined when it is missing. */
export function webhookSenders(repo: Repo): { file: DataFile; senders: WebhookSender[] } | undefined {
  const file = repo.dataFiles.get(SENDERS_FILE);
  if (!file) return undefined;
  const list = dig(file.data, ['senders']);
  const senders = (Array.isArray(list) ? list : []).map((entry: unknown, i): WebhookSender => {
    const text = (key: string) => {
      const v = dig(entry, [key]);
      return typeof v === 'string' ? v : undefined;
    };
    return {
      name: text('name') ?? '',
      url: text('url'),
      contentType: text('contentType'),
      payload: text('payload'),
      minimumLevel: text('minimumLevel'),
      at: ['senders', i],
    };
  });
  return { file, senders };
}

export interface PostableAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  at: Path;
}

/** A body's alerts as Alertmanager takes them, or why it would refuse the body (HTTP 400), with where. */
export function postableAlerts(body: unknown): { alerts: PostableAlert[]; problems: { path: Path; why: string }[] } {
  const problems: { path: Path; why: string }[] = [];
  if (!Array.isArray(body) || body.length === 0) return { alerts: [], problems: [{ path: [], why: 'must be a JSON array of alerts' }] };
  const alerts = body.flatMap((alert: unknown, i): PostableAlert[] => {
    const strings = (key: 'labels' | 'annotations', required: boolean): Record<string, string> | undefined => {
      const v = dig(alert, [key]);
      if (v === undefined && !required) return {};
      if (typeof v !== 'object' || v === null || Array.isArray(v) || Object.values(v).some((x) => typeof x !== 'string')) {
        problems.push({ path: [i, key], why: `${key} must be an object of strings` });
        return undefined;
      }
      return v as Record<string, string>;
    };
    const labels = strings('labels', true);
    const annotations = strings('annotations', false);
    return labels && annotations ? [{ labels, annotations, at: [i] }] : [];
  });
  return { alerts, problems };
}
