/**
 * A value of the wrong type in the media stack's files of the real repository (its manifests, its apps' settings and
 * facts) is judged: the schema layer (or the check reading it) names it, and no check throws on it (the other files:
 * wrong-types.test.ts).
 */
import { describeWrongTypes, type WrongType } from '../support/wrong-types.ts';

const CASES: WrongType[] = [
  ['apps/media/sonarr/ingress.yaml', 0, ['spec', 'rules'], 0],
  ['apps/media/jellyseerr/settings/jellyseerr.yaml', 0, ['radarr'], [null]],
  ['apps/media/cleanuparr/settings/cleanuparr.yaml', 0, ['managers', 2, 'url'], 'a'.repeat(300)],
  ['apps/media/tautulli/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 0, 'ports'], [null]],
  ['apps/media/gluetun/service.yaml', 0, ['spec', 'ports'], [null]],
  ['apps/media/unpackerr/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 0, 'volumeMounts', 0], null],
  ['apps/media/plex/deployment.yaml', 0, ['spec', 'template', 'spec', 'volumes', 1], null],
  ['apps/media/cleanuparr/ingress.yaml', 0, ['spec', 'rules', 0], null],
  ['apps/media/bazarr/deployment.yaml', 0, ['spec', 'template', 'spec', 'volumes'], 1.5],
  ['apps/media/jellyseerr/ingress.yaml', 1, ['spec', 'dnsNames', 0], [null]],
  ['apps/media/tautulli/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers'], 'x'],
  ['apps/media/jellyseerr/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 0, 'volumeMounts'], 1.5],
  ['apps/media/jellyseerr/ingress.yaml', 0, ['spec', 'tls', 0, 'hosts'], 1.5],
  ['apps/media/sonarr/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 1, 'ports'], {}],
  ['apps/media/unpackerr/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 0, 'env', 1], null],
  ['apps/media/jellyseerr/deployment.yaml', 0, ['spec', 'template'], []],
  ['apps/media/sonarr/deployment.yaml', 0, ['spec', 'template'], 99999999999],
  ['apps/media/jellyseerr/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 0, 'volumeMounts', 0], { a: null }],
  ['apps/media/facts/media.yaml', 0, ['roles', 'subtitleManagers'], 'x'],
  // Found by `npm run fuzz` (seed 1205004, every chart rendered): the optional list of folders filled by hand, as a map.
  ['apps/media/facts/media.yaml', 0, ['filledByHand'], { a: null }],
  // And (seed 1205007, removed) the VPN pod's share PersistentVolume without its spec.
  ['apps/media/gluetun/storage.yaml', 3, ['spec'], null],
  ['apps/media/radarr-4k/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 1, 'env'], 'x'],
  ['apps/media/bazarr-4k/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 0, 'volumeMounts', 2, 'mountPath'], true],
  ['apps/media/tdarr/deployment.yaml', 1, ['spec', 'template', 'spec', 'containers', 0, 'env', 4], null],
  ['apps/media/gluetun/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 0, 'env', 2], null],
  ['apps/media/plex/deployment.yaml', 0, ['spec', 'template', 'spec', 'containers', 0, 'volumeMounts', 2, 'mountPath'], true],
];

describeWrongTypes("a value of the wrong type in the media stack's files", CASES);
