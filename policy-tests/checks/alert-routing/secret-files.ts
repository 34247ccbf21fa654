/** The files Alertmanager's configuration reads (A11, A12): each a key of a mounted Secret an ExternalSecret writes. */
import { CONFIG_PATH } from '../../model/monitoring/alertmanager.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { applicationsByName } from '../../model/argocd/argocd.ts';
import { dig, list, objects } from '../../model/core/dig.ts';
import type { Path } from '../../model/core/positions.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

/** Where the operator mounts alertmanagerSpec.secrets: /etc/alertmanager/secrets/<secret>/<key>. */
const SECRETS_DIR = /^\/etc\/alertmanager\/secrets\/([^/]+)\/([^/]+)$/;

/** Every `*_file` setting of the Alertmanager configuration, with its path under alertmanager.config. */
function fileSettings(value: unknown, at: Path = []): { path: Path; key: string; file: string }[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => fileSettings(v, [...at, i]));
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) =>
    k.endsWith('_file') && typeof v === 'string' ? [{ path: [...at, k], key: k, file: v }] : fileSettings(v, [...at, k]),
  );
}

export const secretFilesCheck: PolicyCheck = {
  id: 'alertmanager-secret-files',
  description:
    "Every file the Alertmanager configuration reads (a receiver's api_url_file, credentials_file...) is a key of a Secret listed in alertmanagerSpec.secrets and written by an ExternalSecret with that key; otherwise the receiver cannot send, and chat or the heartbeat stays silent (A11, A12).",
  invariants: ['A11', 'A12'],
  remediation:
    'read /etc/alertmanager/secrets/<secret>/<key>, list <secret> in alertmanager.alertmanagerSpec.secrets, and write <key> with an ExternalSecret targeting <secret>',
  reads: { kinds: ['ExternalSecret'], charts: ['kube-prometheus-stack'] },
  exemptible: false,
  run(ctx) {
    for (const { appName, values, source } of chartValues(ctx.repo, 'kube-prometheus-stack')) {
      const namespace = applicationsByName(ctx.repo).get(appName)?.destinationNamespace;
      const listed = list(dig(values, ['alertmanager', 'alertmanagerSpec', 'secrets'])) as string[];
      /** The keys each ExternalSecret of the namespace writes into its target Secret; undefined keys when it extracts whole items. */
      const written = (secret: string, key: string) =>
        ctx.resources.some((es) => {
          if (es.kind !== 'ExternalSecret' || es.namespace !== namespace || (dig(es.object, ['spec', 'target', 'name']) ?? es.name) !== secret) return false;
          const keys = (objects(dig(es.object, ['spec', 'data'])) as { secretKey?: string }[]).map((d) => d.secretKey);
          return keys.includes(key) || (list(dig(es.object, ['spec', 'dataFrom'])) as unknown[]).length > 0;
        });
      for (const setting of fileSettings(dig(values, [...CONFIG_PATH]))) {
        const fail = (why: string) => ctx.fail({ data: source, path: [...CONFIG_PATH, ...setting.path] }, `${setting.key} reads ${setting.file}, but ${why}`);
        const m = SECRETS_DIR.exec(setting.file);
        if (!m) fail('Alertmanager mounts its Secrets at /etc/alertmanager/secrets/<secret>/<key> only: the file does not exist');
        else if (!listed.includes(m[1]!)) fail(`Secret ${m[1]} is not in alertmanagerSpec.secrets, so nothing is mounted there`);
        else if (!written(m[1]!, m[2]!)) fail(`no ExternalSecret in ${namespace ?? 'its namespace'} writes key ${m[2]} of Secret ${m[1]}`);
      }
    }
  },
};
