/** Broken copies of the real repository for the check of policy-tests/checks/images/: each fails exactly its check, at its line. */
import { lineOf } from '../support/helpers.ts';
import type { Mutation } from '../support/mutation-runner.ts';
import { after, swap } from './edits.ts';

const TDARR = 'apps/media/tdarr/deployment.yaml';
const CLEANUPARR = 'apps/media/cleanuparr/deployment.yaml';
const PVE_EXPORTER = 'monitoring/pve-exporter/deployment.yaml';
const TAUTULLI = 'apps/media/tautulli/deployment.yaml';
const UNPACKERR = 'apps/media/unpackerr/deployment.yaml';
const UNPOLLER = 'monitoring/unpoller/deployment.yaml';

const API = 'portfolio-api/deploy/deployment.yaml';
const PLEX = 'apps/media/plex/deployment.yaml';

export const imageMutations: Mutation[] = [
  {
    check: 'workload-image-needs',
    why: 'the API told to bind 127.0.0.1: the kubelet probes the pod address, where nothing answers, and the API is never ready',
    mutate: swap(API, '              value: 0.0.0.0\n', '              value: 127.0.0.1\n'),
    at: 'value: 127.0.0.1',
  },
  {
    check: 'workload-image-needs',
    why: "the API's metrics moved to 9465 by METRICS_PORT while its Service and ServiceMonitor still scrape 9464: up is 0 for the job",
    mutate: swap(API, '              value: "9464"\n', '              value: "9465"\n'),
    at: (c) => ({ file: 'portfolio-api/deploy/service.yaml', line: lineOf(c, 'portfolio-api/deploy/service.yaml', 'targetPort: metrics') }),
  },
  {
    check: 'workload-image-needs',
    why: "the API's Service opens Node's inspector port to the monitoring namespace for a debugging session started with --inspect alone, which listens on 127.0.0.1: the Service reaches nothing",
    mutate: (c) => {
      swap(
        API,
        '              containerPort: 9464\n',
        '              containerPort: 9464\n            - name: inspector\n              containerPort: 9229\n',
      )(c);
      swap(API, '          env:\n', '          env:\n            - name: NODE_OPTIONS\n              value: --inspect\n')(c);
      swap(
        'portfolio-api/deploy/service.yaml',
        '      targetPort: metrics\n',
        '      targetPort: metrics\n    - name: inspector\n      port: 9229\n      targetPort: inspector\n',
      )(c);
      swap('portfolio-api/deploy/networkpolicy.yaml', '        - port: metrics\n', '        - port: metrics\n        - port: inspector\n')(c);
    },
    at: (c) => ({ file: 'portfolio-api/deploy/service.yaml', line: lineOf(c, 'portfolio-api/deploy/service.yaml', 'targetPort: inspector') }),
  },
  {
    check: 'workload-image-needs',
    why: 'Jellyseerr given PORT=5056: it listens there, and its probes and Service ask 5055, so it is never ready and its Ingress answers 502',
    mutate: swap(
      'apps/media/jellyseerr/deployment.yaml',
      '              value: "Europe/Oslo"\n',
      '              value: "Europe/Oslo"\n            - name: PORT\n              value: "5056"\n',
    ),
    at: (c) => ({ file: 'apps/media/jellyseerr/deployment.yaml', line: lineOf(c, 'apps/media/jellyseerr/deployment.yaml', 'port: http') }),
  },
  {
    check: 'workload-image-needs',
    why: "the API's BASE_URL host misspelt: it starts, and its OpenAPI document sends every client to a host no Ingress routes to it",
    mutate: swap(API, '              value: https://portfolio.example.net\n', '              value: https://portfolio.example.nte\n'),
    at: 'value: https://portfolio.example.nte',
  },
  {
    check: 'workload-image-needs',
    why: 'the API given a BASE_URL with no scheme: its config refuses it, and the API exits 1 at every start',
    mutate: swap(API, '              value: https://portfolio.example.net\n', '              value: portfolio.example.net\n'),
    at: 'value: portfolio.example.net',
  },
  {
    check: 'workload-image-needs',
    why: "Plex's second advertised address misspelt: it publishes it through plex.tv, and a client that tries it reaches a host no Ingress routes to Plex",
    mutate: swap(PLEX, '              value: https://plex.example.net:443\n', '              value: https://plex.example.net:443, https://plex.exmaple.net\n'),
    at: 'value: https://plex.example.net:443, https://plex.exmaple.net',
  },
  {
    check: 'workload-image-needs',
    why: "Plex's advertised address written without its scheme: customConnections takes HTTP or HTTPS URLs, and every client outside the cluster falls back to the relay",
    mutate: swap(PLEX, '              value: https://plex.example.net:443\n', '              value: plex.example.net:443\n'),
    at: 'value: plex.example.net:443',
  },
  {
    check: 'workload-image-needs',
    why: "the API's ServiceMonitor scrapes /metric: the API serves /metrics alone on its metrics port, answers a 404, and up is 0 for the job",
    mutate: swap('portfolio-api/deploy/servicemonitor.yaml', '      path: /metrics\n', '      path: /metric\n'),
    at: 'path: /metric',
  },
  {
    check: 'workload-image-needs',
    why: "the API's liveness probe loses its path: the kubelet asks for /, which the API answers with a 404, and kills the container over and over",
    mutate: swap(
      'portfolio-api/deploy/deployment.yaml',
      '          livenessProbe:\n            httpGet:\n              path: /api/health\n',
      '          livenessProbe:\n            httpGet:\n',
    ),
    at: after('portfolio-api/deploy/deployment.yaml', 'livenessProbe:', '              port: http'),
  },
  {
    check: 'workload-image-needs',
    why: "Renovate's bump of the Tdarr node merged alone: its server, a release behind, refuses it",
    mutate: swap(TDARR, 'image: ghcr.io/haveagitgat/tdarr_node:2.49.01', 'image: ghcr.io/haveagitgat/tdarr_node:2.50.01'),
    at: 'image: ghcr.io/haveagitgat/tdarr_node:2.50.01',
  },
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
    why: "the TV manager without s6's switch for the kubelet's /run: its preinit, started as 1000 with no privilege escalation, will not take a world-writable /run and stops before Sonarr starts",
    mutate: swap('apps/media/sonarr/deployment.yaml', /            # s6-overlay's preinit[^]*?value: "1"\n/, ''),
    at: after('apps/media/sonarr/deployment.yaml', '        - name: sonarr', '          securityContext:'),
  },
  {
    check: 'workload-image-needs',
    why: "the torrent client's /run volume gone: the image's /run is root's, and s6's preinit cannot make it the user's",
    mutate: (c) => {
      swap('apps/media/gluetun/deployment.yaml', '            - name: qbittorrent-run\n              mountPath: /run\n', '')(c);
      swap(
        'apps/media/gluetun/deployment.yaml',
        '        - name: qbittorrent-run\n          emptyDir:\n            medium: Memory\n            sizeLimit: 16Mi\n',
        '',
      )(c);
    },
    at: after('apps/media/gluetun/deployment.yaml', '        - name: qbittorrent', '          securityContext:'),
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
    check: 'workload-image-needs',
    why: 'the status writer started as noed: the runtime finds no such program on the image PATH, and no status is ever written',
    mutate: swap(
      'portfolio-api/deploy/status-writer.yaml',
      'command: ["node", "dist/status-writer/main.js"]',
      'command: ["noed", "dist/status-writer/main.js"]',
    ),
    at: 'command: ["noed"',
  },
  {
    check: 'workload-image-needs',
    why: "the etcd backup's scratch volume mounted at /mtp: its read-only root leaves /tmp unwritable, and every nightly run stops before it takes the snapshot",
    mutate: swap('apps/platform/backups/etcd-backup.yaml', '              mountPath: /tmp', '              mountPath: /mtp'),
    at: after('apps/platform/backups/etcd-backup.yaml', '            args: [backup, etcd]', '            securityContext:'),
  },
  {
    check: 'workload-image-needs',
    why: 'Tautulli started with --datadri: its argparse refuses the option, Python exits 2 before the app runs, and the pod restarts for good',
    mutate: swap(TAUTULLI, '"Tautulli.py", "--datadir", "/config"', '"Tautulli.py", "--datadri", "/config"'),
    at: 'command: ["python", "Tautulli.py", "--datadri"',
  },
  {
    check: 'workload-image-needs',
    why: 'the status writer told to run dist/status-writer/mian.js: the build makes no such script, node stops at once ("Cannot find module"), and the infrastructure status is never written',
    mutate: swap(
      'portfolio-api/deploy/status-writer.yaml',
      'command: ["node", "dist/status-writer/main.js"]',
      'command: ["node", "dist/status-writer/mian.js"]',
    ),
    at: (c) => ({ file: 'portfolio-api/deploy/status-writer.yaml', line: lineOf(c, 'portfolio-api/deploy/status-writer.yaml', 'mian.js') }),
    fix: 'run one of the scripts the build makes: dist/server.js, dist/status-writer/main.js',
  },
  {
    check: 'workload-image-needs',
    why: "the GPU plugin's /dev/dri mounted at /dev/drj: it scans the image's empty /dev/dri, finds no GPU, and Plex and the Tdarr node stay Pending",
    mutate: swap('apps/platform/intel-gpu-plugin/daemonset.yaml', '              mountPath: /dev/dri\n', '              mountPath: /dev/drj\n'),
    at: 'mountPath: /dev/drj',
  },
  {
    check: 'workload-image-needs',
    why: "the GPU plugin's socket folder taken from the node's /var/lib/kubelet/device-plugin: the kubelet never sees its socket, and gpu.intel.com/i915 is never advertised",
    mutate: swap(
      'apps/platform/intel-gpu-plugin/daemonset.yaml',
      '          hostPath:\n            path: /var/lib/kubelet/device-plugins\n',
      '          hostPath:\n            path: /var/lib/kubelet/device-plugin\n',
    ),
    at: after('apps/platform/intel-gpu-plugin/daemonset.yaml', '        - name: intel-gpu-plugin', '          securityContext:'),
  },
  {
    check: 'workload-image-needs',
    why: 'Unpackerr run as ghcr.io/unpackerr/unpackesr: the registry has no such image, the kubelet cannot pull it, and no download is extracted again',
    mutate: swap(UNPACKERR, 'image: ghcr.io/unpackerr/unpackerr:', 'image: ghcr.io/unpackerr/unpackesr:'),
    at: 'image: ghcr.io/unpackerr/unpackesr:',
  },
  {
    check: 'workload-image-needs',
    why: 'MKNOD trimmed from gluetun, and from the privileges it names: no pod is given /dev/net/tun, gluetun cannot make it, and the VPN never comes up',
    mutate: (c) => {
      swap('apps/media/gluetun/deployment.yaml', 'add: ["NET_ADMIN", "MKNOD"]', 'add: ["NET_ADMIN"]')(c);
      swap('apps/media/gluetun/deployment.yaml', 'gluetun: root, cap:NET_ADMIN, cap:MKNOD"', 'gluetun: root, cap:NET_ADMIN"')(c);
    },
    at: after('apps/media/gluetun/deployment.yaml', '        - name: gluetun', '          securityContext:'),
  },
  {
    check: 'workload-image-needs',
    why: "Tautulli's command dropped, so the image's ./start.sh runs as user 1000: its usermod and chown fail, and gosu's setgroups(2) stops it before the app starts",
    mutate: swap(TAUTULLI, /          # The image's CMD, run without[^]*?command: \[[^\n]*\]\n/, ''),
    at: after(TAUTULLI, '        - name: tautulli', '          securityContext:'),
  },
  {
    check: 'workload-image-needs',
    why: "the 4K movie manager's API key dropped from Unpackerr: it skips that manager, and the 4K downloads stay packed",
    mutate: swap(UNPACKERR, /            - name: UN_RADARR_1_API_KEY\n[^]*?key: api-key\n/, ''),
    at: (c) => ({ file: UNPACKERR, line: lineOf(c, UNPACKERR, '            - name: UN_RADARR_1_URL') }),
  },
  {
    check: 'workload-image-needs',
    why: "the 4K movie manager's URL variable misspelt (UN_RADARR_1_ULR): Unpackerr reads no such name, finds the key without a URL, skips that manager, and the 4K downloads stay packed",
    mutate: swap(UNPACKERR, '            - name: UN_RADARR_1_URL\n', '            - name: UN_RADARR_1_ULR\n'),
    at: (c) => ({ file: UNPACKERR, line: lineOf(c, UNPACKERR, '            - name: UN_RADARR_1_API_KEY') }),
  },
  {
    check: 'workload-image-needs',
    why: 'a facts field misspelt (startedForm): nothing reads it, and the Ceph CSI sidecars Rook starts at run time would lose what their facts say of them',
    mutate: swap(
      'apps/platform/rook-ceph/facts/images.yaml',
      '    startedFrom: { kind: ConfigMap, name: rook-csi-operator-image-set-configmap, path: data.provisioner }',
      '    startedForm: { kind: ConfigMap, name: rook-csi-operator-image-set-configmap, path: data.provisioner }',
    ),
    at: 'startedForm:',
  },
  {
    check: 'workload-image-needs',
    why: "the movie manager's URL for Unpackerr written without its scheme (radarr.media.svc:7878): Unpackerr takes one starting http:// or https:// alone, drops Radarr from its list without a word, and the movie downloads stay packed",
    mutate: swap(UNPACKERR, '              value: http://radarr.media.svc:7878\n', '              value: radarr.media.svc:7878\n'),
    at: (c) => ({ file: UNPACKERR, line: lineOf(c, UNPACKERR, '              value: radarr.media.svc:7878') }),
  },
  {
    check: 'workload-image-needs',
    why: "the Proxmox exporter's container port written 9222: it listens at --web.listen-address, [::]:9221 where not given, so its probes and Service ask a port where nothing answers",
    mutate: swap(PVE_EXPORTER, '              containerPort: 9221\n', '              containerPort: 9222\n'),
    at: (c) => ({ file: PVE_EXPORTER, line: lineOf(c, PVE_EXPORTER, 'port: http') }),
  },
  {
    check: 'workload-image-needs',
    why: 'the Proxmox exporter given --web.listen-address=127.0.0.1:9221: the kubelet and Prometheus come to the pod address, where nothing answers',
    mutate: swap(
      PVE_EXPORTER,
      '"--config.file=/etc/pve-exporter/pve.yml"]',
      '"--config.file=/etc/pve-exporter/pve.yml", "--web.listen-address=127.0.0.1:9221"]',
    ),
    at: (c) => ({ file: PVE_EXPORTER, line: lineOf(c, PVE_EXPORTER, '--web.listen-address=127.0.0.1:9221') }),
  },
  {
    check: 'workload-image-needs',
    why: "unpoller's listen address moved to :9131 while its container port, probes and Service stay at 9130: nothing answers there, and the gateway's metrics stop",
    mutate: swap(UNPOLLER, '              value: 0.0.0.0:9130\n', '              value: :9131\n'),
    at: (c) => ({ file: UNPOLLER, line: lineOf(c, UNPOLLER, 'port: http-metrics') }),
  },
  {
    check: 'workload-image-needs',
    why: "unpoller told to listen on 127.0.0.1:9130: the kubelet's probes and Prometheus come to the pod's address, where nothing answers",
    mutate: swap(UNPOLLER, '              value: 0.0.0.0:9130\n', '              value: 127.0.0.1:9130\n'),
    at: (c) => ({ file: UNPOLLER, line: lineOf(c, UNPOLLER, 'value: 127.0.0.1:9130') }),
  },
  {
    check: 'workload-image-needs',
    why: "unpoller's liveness probe back on /metrics: every request there polls the UniFi controller, so a controller slower than the probe's second restarts a healthy exporter",
    mutate: swap(
      UNPOLLER,
      '          livenessProbe:\n            httpGet:\n              path: /\n',
      '          livenessProbe:\n            httpGet:\n              path: /metrics\n',
    ),
    at: (c) => ({ file: UNPOLLER, line: lineOf(c, UNPOLLER, '              path: /metrics') }),
  },
  {
    check: 'workload-image-needs',
    why: "gluetun's liveness probe asks /v1/publicip, the public IP route without its /ip: the control server answers every path its public role does not list with a 401, the probe always fails, and the kubelet restarts the VPN over and over",
    mutate: swap(
      'apps/media/gluetun/deployment.yaml',
      '          livenessProbe:\n            httpGet:\n              path: /v1/publicip/ip\n',
      '          livenessProbe:\n            httpGet:\n              path: /v1/publicip\n',
    ),
    at: (c) => ({ file: 'apps/media/gluetun/deployment.yaml', line: lineOf(c, 'apps/media/gluetun/deployment.yaml', '              path: /v1/publicip\n') }),
  },
  {
    check: 'workload-image-needs',
    why: "the Proxmox exporter's readiness probe asks /healthz: its server has three routes (/, /metrics and /pve) and answers any other with a 404, so the exporter never joins its Service and is never scraped",
    mutate: swap(
      PVE_EXPORTER,
      '          readinessProbe:\n            httpGet:\n              path: /\n',
      '          readinessProbe:\n            httpGet:\n              path: /healthz\n',
    ),
    at: (c) => ({ file: PVE_EXPORTER, line: lineOf(c, PVE_EXPORTER, '              path: /healthz') }),
  },
  {
    check: 'workload-image-needs',
    why: "the VPN's interface address dropped from gluetun: Mullvad's WireGuard has no default address, gluetun refuses its settings, and the VPN pod never starts",
    mutate: swap('apps/media/gluetun/deployment.yaml', /            # The tunnel's own address[^]*?key: WIREGUARD_ADDRESSES\n/, ''),
    at: after('apps/media/gluetun/deployment.yaml', '        - name: gluetun', '          env:'),
  },
  {
    check: 'workload-image-needs',
    why: "Plex's container port written 32401: Plex listens on 32400 whatever the pod says, so its probes and its Service ask a port where nothing answers, and the kubelet restarts it over and over",
    mutate: swap(PLEX, '              containerPort: 32400\n', '              containerPort: 32401\n'),
    at: (c) => ({ file: PLEX, line: lineOf(c, PLEX, 'port: http') }),
  },
  {
    check: 'workload-image-needs',
    why: 'Cleanuparr given PORT=11012 for a second instance beside it: Kestrel listens there, and its probes and Service still ask 11011, so it is never ready',
    mutate: swap(CLEANUPARR, '          env:\n', '          env:\n            - name: PORT\n              value: "11012"\n'),
    at: (c) => ({ file: CLEANUPARR, line: lineOf(c, CLEANUPARR, 'port: http') }),
  },
  {
    check: 'workload-image-needs',
    why: "Cleanuparr's PGID left without its value: the kubelet sets it empty, which replaces the image's 1000, and its entrypoint's groupadd -g '' stops the start under set -e",
    mutate: swap(CLEANUPARR, '            - name: PGID\n              value: "1000"\n', '            - name: PGID\n'),
    at: (c) => ({ file: CLEANUPARR, line: lineOf(c, CLEANUPARR, '            - name: PGID') }),
  },
  {
    check: 'workload-image-needs',
    why: "gluetun's VPN_TYPE line tidied away: the image's default type is OpenVPN, which logs in to Mullvad with a user and a password the pod does not set, so gluetun refuses its settings and the VPN pod never starts",
    mutate: swap('apps/media/gluetun/deployment.yaml', '            - name: VPN_TYPE\n              value: wireguard\n', ''),
    at: after('apps/media/gluetun/deployment.yaml', '        - name: gluetun', '          env:'),
  },
  {
    check: 'workload-image-needs',
    why: 'unpoller held at 2.19.0, its catalog entry with it: save_syslog arrived in 2.20.0, so the variable is ignored and no system log reaches Loki',
    mutate: (c) => {
      swap(UNPOLLER, 'ghcr.io/unpoller/unpoller:v2.20.0', 'ghcr.io/unpoller/unpoller:v2.19.0')(c);
      swap('monitoring/metrics-catalog/unpoller-v2.20.0.yaml', /v2\.20\.0/g, 'v2.19.0')(c);
    },
    at: (c) => ({ file: UNPOLLER, line: lineOf(c, UNPOLLER, '- name: UP_UNIFI_DEFAULT_SAVE_SYSLOG') }),
  },
  {
    check: 'workload-image-needs',
    why: "the TV manager's API key no longer from the store: Sonarr makes its own at first start, and its exporter, Unpackerr, Bazarr, Prowlarr and Jellyseerr all get 401",
    mutate: swap('apps/media/sonarr/deployment.yaml', /            # The API key every client of it holds[^]*?key: api-key\n/, ''),
    at: after('apps/media/sonarr/deployment.yaml', '        - name: sonarr', '          env:'),
  },
  {
    check: 'workload-image-needs',
    why: 'Tdarr back at the tag 2.49.1: Tdarr tags its releases with a two-digit patch (2.49.01), so no such tag exists and the transcoder never pulls',
    mutate: swap(TDARR, 'image: ghcr.io/haveagitgat/tdarr:2.49.01\n', 'image: ghcr.io/haveagitgat/tdarr:2.49.1\n'),
    at: (c) => ({ file: TDARR, line: lineOf(c, TDARR, 'image: ghcr.io/haveagitgat/tdarr:2.49.1') }),
  },
  {
    check: 'workload-image-needs',
    why: 'Plex back under its old name, ghcr.io/onedr0p/plex, where no release has been pushed since the move to home-operations',
    mutate: swap('apps/media/plex/deployment.yaml', 'image: ghcr.io/home-operations/plex:', 'image: ghcr.io/onedr0p/plex:'),
    at: (c) => ({ file: 'apps/media/plex/deployment.yaml', line: lineOf(c, 'apps/media/plex/deployment.yaml', 'image: ghcr.io/onedr0p/plex:') }),
  },
  {
    check: 'workload-image-needs',
    why: "Plex without its /transcode volume: the image's entrypoint points the transcoder there and the image gives its user no such directory, so every transcode fails",
    mutate: (c) => {
      const file = 'apps/media/plex/deployment.yaml';
      const text = c.read(file);
      c.write(
        file,
        text
          .replace(/            # Where the image's entrypoint points[^]*?              mountPath: \/transcode\n/, '')
          .replace(/        # Transcode segments[^]*?            sizeLimit: 32Gi\n/, ''),
      );
    },
    at: after('apps/media/plex/deployment.yaml', '        - name: plex', '          securityContext:'),
  },
  {
    check: 'workload-image-needs',
    why: 'Plex without PLEX_ADVERTISE_URL: it gives its clients only the pod address, which none outside the cluster reaches, so every client falls back to the relay',
    mutate: swap(
      'apps/media/plex/deployment.yaml',
      /          env:\n            # The address Plex gives its clients[^]*?value: https:\/\/plex\.example\.net:443\n/,
      '',
    ),
    at: (c) => ({ file: 'apps/media/plex/deployment.yaml', line: lineOf(c, 'apps/media/plex/deployment.yaml', '        - name: plex') }),
  },
  {
    check: 'workload-image-needs',
    why: 'Sonarr routed at /sonarr with no URL base set: its page loads its scripts, styles and API calls from under /, which the route does not forward, and the UI is blank',
    mutate: swap('apps/media/sonarr/ingress.yaml', '          - path: /\n', '          - path: /sonarr\n'),
    at: 'path: /sonarr',
  },
  {
    check: 'workload-image-needs',
    why: 'Radarr routed by an Exact path: only its first page is forwarded, nothing it loads',
    mutate: swap('apps/media/radarr/ingress.yaml', '            pathType: Prefix\n', '            pathType: Exact\n'),
    at: (c) => ({ file: 'apps/media/radarr/ingress.yaml', line: lineOf(c, 'apps/media/radarr/ingress.yaml', '- path: /') }),
  },
  {
    check: 'workload-image-needs',
    why: 'Cleanuparr given BASE_PATH=/cleanuparr while its probes ask /health: it answers 404 outside its base, and the kubelet kills it over and over',
    mutate: swap(
      CLEANUPARR,
      '              value: "Europe/Oslo"\n',
      '              value: "Europe/Oslo"\n            - name: BASE_PATH\n              value: /cleanuparr\n',
    ),
    at: (c) => ({ file: CLEANUPARR, line: lineOf(c, CLEANUPARR, 'path: /health') }),
  },
  {
    check: 'workload-image-needs',
    why: "the Proxmox exporter given --collector.replicatoin: the args go to its ENTRYPOINT, whose argparse refuses the option, exit 2 before it serves, and the host's metrics stop",
    mutate: swap(
      PVE_EXPORTER,
      'args: ["--config.file=/etc/pve-exporter/pve.yml"]',
      'args: ["--config.file=/etc/pve-exporter/pve.yml", "--collector.replicatoin"]',
    ),
    at: '"--collector.replicatoin"',
  },
  {
    check: 'workload-image-needs',
    why: "gluetun's probes moved to its health server's port 9999: it listens on 127.0.0.1 alone (HEALTH_SERVER_ADDRESS), the kubelet's probes find nothing there, and the VPN pod restarts for good",
    mutate: swap('apps/media/gluetun/deployment.yaml', '              containerPort: 8000', '              containerPort: 9999'),
    at: (c) => ({ file: 'apps/media/gluetun/deployment.yaml', line: lineOf(c, 'apps/media/gluetun/deployment.yaml', '        - name: gluetun') }),
  },
  {
    check: 'workload-image-needs',
    why: "the GPU plugin given -shared-dev-num=two: Go's flag package cannot read it as a number and exits 2, the plugin restarts for good, and no pod is given the GPU",
    mutate: swap('apps/platform/intel-gpu-plugin/daemonset.yaml', 'args: ["-shared-dev-num=2"]', 'args: ["-shared-dev-num=two"]'),
    at: '"-shared-dev-num=two"',
  },
  {
    check: 'workload-image-needs',
    why: "Tautulli's script misspelt in its command: python cannot open it and exits 2, and the container restarts for good",
    mutate: swap(TAUTULLI, '["python", "Tautulli.py"', '["python", "Tautulil.py"'),
    at: 'Tautulil.py',
  },
  {
    check: 'workload-image-needs',
    why: "the API's key given as APJ_KEY: nothing reads it, API_KEY stays unset, and every write is refused (503)",
    mutate: swap(API, '            - name: API_KEY\n', '            - name: APJ_KEY\n'),
    at: 'name: APJ_KEY',
  },
];
