/** Broken copies of the real repository for the checks of policy-tests/checks/workload-hygiene.ts: each fails exactly its check, at its line. */
import { isSeq } from 'yaml';
import { lineOf } from '../support/helpers.ts';
import type { Mutation } from '../support/mutation-runner.ts';
import { after, CONTAINER, DEPLOYMENT, MEDIA_DEPLOYMENT, PRIVILEGED_NS_DEPLOYMENT, swap } from './edits.ts';

const TDARR = 'apps/media/tdarr/deployment.yaml';
const CLEANUPARR = 'apps/media/cleanuparr/deployment.yaml';
const PVE_EXPORTER = 'monitoring/pve-exporter/deployment.yaml';

export const workloadHygieneMutations: Mutation[] = [
  {
    check: 'workload-image-needs',
    why: 'the Tdarr node back as it was: started as user 1000 with every capability dropped, so its s6 init cannot chown or drop to PUID, and s6-setuidgid fails before the node ever runs',
    mutate: (c) => {
      const text = c.read(TDARR);
      const node = text.indexOf('  name: tdarr-node\n');
      const tail = text
        .slice(node)
        .replace(/  annotations:\n(    [^\n]*\n)+(?=spec:)/, '')
        .replace(
          /      # Root at the start[^]*?      securityContext:\n        fsGroup: 1000\n/,
          '      securityContext:\n        runAsNonRoot: true\n        runAsUser: 1000\n        runAsGroup: 1000\n        fsGroup: 1000\n        supplementalGroups: [44]\n',
        )
        .replace('              add: ["CHOWN", "DAC_OVERRIDE", "FOWNER", "SETGID", "SETUID", "KILL"]\n', '');
      c.write(TDARR, text.slice(0, node) + tail);
    },
    at: after(TDARR, 'name: tdarr-node', '          securityContext:'),
  },
  {
    check: 'workload-image-needs',
    why: 'KILL trimmed from the server as unneeded, and from the privileges it names: s6 can no longer signal the app it supervises once that runs as PUID',
    mutate: (c) => {
      swap(TDARR, 'cap:SETUID, cap:KILL"', 'cap:SETUID"')(c);
      swap(TDARR, '"SETGID", "SETUID", "KILL"]', '"SETGID", "SETUID"]')(c);
    },
    at: after(TDARR, '        - name: tdarr', '          securityContext:'),
  },
  {
    check: 'workload-image-needs',
    why: 'Cleanuparr 2.4.6 started as user 1000 again: its entrypoint runs groupadd under set -e and exits before the app starts',
    mutate: (c) =>
      c.write(
        CLEANUPARR,
        c
          .read(CLEANUPARR)
          .replace(/  annotations:\n(    [^\n]*\n)+(?=spec:)/, '')
          .replace(
            '      securityContext:\n        fsGroup: 1000\n',
            '      securityContext:\n        runAsNonRoot: true\n        runAsUser: 1000\n        runAsGroup: 1000\n        fsGroup: 1000\n',
          ),
      ),
    at: after(CLEANUPARR, '        - name: cleanuparr', '          securityContext:'),
  },
  {
    check: 'workload-image-needs',
    why: "the torrent client's readiness asks its API for the version again: every /api/v2 path but the login answers 403 to the kubelet, so the VPN pod is never Ready and the managers lose their download client",
    mutate: (c) =>
      c.write(
        'apps/media/gluetun/deployment.yaml',
        c
          .read('apps/media/gluetun/deployment.yaml')
          .replace(
            '          readinessProbe:\n            httpGet:\n              path: /\n              port: http-qbt',
            '          readinessProbe:\n            httpGet:\n              path: /api/v2/app/version\n              port: http-qbt',
          ),
      ),
    at: (c) => ({
      file: 'apps/media/gluetun/deployment.yaml',
      line: lineOf(c, 'apps/media/gluetun/deployment.yaml', '              path: /api/v2/app/version'),
    }),
  },
  {
    check: 'workload-image-needs',
    why: "the Proxmox exporter's temporary directory dropped from its read-only root: gunicorn finds nowhere to make its worker's heartbeat file and stops at start",
    mutate: (c) => {
      swap(PVE_EXPORTER, /            # gunicorn makes[^]*?mountPath: \/tmp\n/, '')(c);
      swap(PVE_EXPORTER, /        - name: tmp\n          emptyDir:\n[^]*?sizeLimit: 16Mi\n?/, '')(c);
    },
    at: after(PVE_EXPORTER, '        - name: exporter', '          securityContext:'),
  },
  {
    check: 'workload-port-clash',
    why: "the TV manager's exporter also declares the manager's own port 8989: two containers of one network namespace on one port",
    mutate: (c) =>
      c.write(
        'apps/media/sonarr/deployment.yaml',
        c
          .read('apps/media/sonarr/deployment.yaml')
          .replace(
            '            - name: metrics\n              containerPort: 9707\n',
            '            - name: metrics\n              containerPort: 9707\n            - name: web\n              containerPort: 8989\n',
          ),
      ),
    at: (c) => ({ file: 'apps/media/sonarr/deployment.yaml', line: lineOf(c, 'apps/media/sonarr/deployment.yaml', '            - name: web') + 1 }),
  },
  {
    check: 'workload-rwo-rollout',
    why: 'the TV manager rolls out by surging on its ReadWriteOnce config claim: a new pod on another node waits for the volume the old one holds, for good',
    mutate: (c) =>
      c.write(
        'apps/media/sonarr/deployment.yaml',
        c.read('apps/media/sonarr/deployment.yaml').replace('  strategy:\n    type: Recreate\n', '  strategy:\n    type: RollingUpdate\n'),
      ),
    at: (c) => ({ file: 'apps/media/sonarr/deployment.yaml', line: lineOf(c, 'apps/media/sonarr/deployment.yaml', '  strategy:') }),
  },
  {
    check: 'workload-rwo-rollout',
    why: 'two replicas of the queue cleaner on one ReadWriteOnce claim: the second pod, on another node, never starts',
    mutate: (c) =>
      c.write('apps/media/cleanuparr/deployment.yaml', c.read('apps/media/cleanuparr/deployment.yaml').replace('  replicas: 1\n', '  replicas: 2\n')),
    at: (c) => ({ file: 'apps/media/cleanuparr/deployment.yaml', line: lineOf(c, 'apps/media/cleanuparr/deployment.yaml', '  replicas: 2') }),
  },
  {
    check: 'workload-image-pinned',
    why: 'the image uses the latest tag',
    mutate: (c) => c.edit(DEPLOYMENT, 0, (d) => d.setIn([...CONTAINER, 'image'], 'ghcr.io/homelab-operator/portfolio-api:latest')),
    at: (c) => ({ file: DEPLOYMENT, line: lineOf(c, DEPLOYMENT, 'image:') }),
  },
  {
    check: 'workload-image-pinned',
    why: 'the image has no tag at all (a registry port is not a tag)',
    mutate: (c) => c.edit(DEPLOYMENT, 0, (d) => d.setIn([...CONTAINER, 'image'], 'registry.local:5000/portfolio-api')),
    at: (c) => ({ file: DEPLOYMENT, line: lineOf(c, DEPLOYMENT, 'image:') }),
  },
  {
    check: 'workload-memory',
    why: 'the memory limit is gone',
    mutate: (c) => c.edit(DEPLOYMENT, 0, (d) => d.deleteIn([...CONTAINER, 'resources', 'limits'])),
    at: (c) => ({ file: DEPLOYMENT, line: lineOf(c, DEPLOYMENT, 'resources:') }),
  },
  {
    check: 'workload-probes',
    why: 'the HTTP container lost its readiness probe',
    mutate: (c) => c.edit(DEPLOYMENT, 0, (d) => d.deleteIn([...CONTAINER, 'readinessProbe'])),
    at: (c) => ({ file: DEPLOYMENT, line: lineOf(c, DEPLOYMENT, '- name: api') }),
  },
  {
    check: 'workload-privilege',
    why: 'allowPrivilegeEscalation is no longer false',
    mutate: (c) => c.edit(MEDIA_DEPLOYMENT, 0, (d) => d.deleteIn([...CONTAINER, 'securityContext', 'allowPrivilegeEscalation'])),
    at: (c) => ({ file: MEDIA_DEPLOYMENT, line: lineOf(c, MEDIA_DEPLOYMENT, 'capabilities:') - 1 }),
  },
  {
    check: 'workload-privilege',
    why: 'the pod no longer insists on a non-root user',
    mutate: (c) => c.edit(MEDIA_DEPLOYMENT, 0, (d) => d.deleteIn(['spec', 'template', 'spec', 'securityContext', 'runAsNonRoot'])),
    at: (c) => ({ file: MEDIA_DEPLOYMENT, line: lineOf(c, MEDIA_DEPLOYMENT, 'allowPrivilegeEscalation') - 1 }),
  },
  {
    check: 'no-plain-secret',
    why: 'a Secret with data is committed',
    mutate: (c) =>
      c.write(
        'portfolio-api/deploy/secret.yaml',
        'apiVersion: v1\nkind: Secret\nmetadata:\n  name: leaked\n  namespace: portfolio\nstringData:\n  API_KEY: hunter2\n',
      ),
    at: () => ({ file: 'portfolio-api/deploy/secret.yaml', line: 6 }),
  },
  {
    check: 'workload-hostpath',
    why: 'a hostPath volume appears',
    mutate: (c) =>
      c.edit(PRIVILEGED_NS_DEPLOYMENT, 0, (d) => {
        const volumes = d.getIn(['spec', 'template', 'spec', 'volumes']);
        if (isSeq(volumes)) volumes.add(d.createNode({ name: 'host', hostPath: { path: '/var/run' } }));
      }),
    at: (c) => ({ file: PRIVILEGED_NS_DEPLOYMENT, line: lineOf(c, PRIVILEGED_NS_DEPLOYMENT, 'hostPath:') }),
  },
];
