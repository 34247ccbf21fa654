/** CronJob entry point: one status write, exit 0 on success, 1 with one clear line otherwise. */
import { inClusterOptions, KubeClient } from './kube.ts';
import { targetFromEnv, writeStatus } from './writer.ts';
import { entryArgs } from '../entry-args.ts';

entryArgs(
  'status-writer',
  `Writes the API's status ConfigMap once, from the cluster it runs in (the CronJob's service account): Argo CD's
view of the app, the nodes, the certificate and a history of days. Environment: STATUS_NAMESPACE, STATUS_CONFIGMAP,
ARGO_APP, CERTIFICATE (each overrides its default). Exits 0 when written, 1 with one line otherwise.`,
);

const target = targetFromEnv(process.env);
const log = (level: string, msg: string, fields: object = {}) =>
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);

try {
  const status = await writeStatus(new KubeClient(inClusterOptions()), target, new Date(), (msg) => log('warn', msg));
  log('info', 'status written', {
    configMap: `${target.namespace}/${target.configMap}`,
    argocd: status.argocd,
    nodes: status.nodes,
    historyDays: status.history.length,
  });
} catch (err) {
  log('error', `status not written: ${(err as Error).message}`);
  process.exitCode = 1;
}
