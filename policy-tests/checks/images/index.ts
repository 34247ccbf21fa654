/**
 * The images area. workload-image-needs: a container runs its image the way the image is built
 * to run. What an image needs is read from its build and kept as facts beside
 * the workloads that run it (model/repository/image-facts.ts); the API server
 * never sees it, and a pod that ignores it is accepted and fails at start.
 */
import { staticArea, type Area, type PolicyCheck } from '../../model/checks/kit.ts';
import { dig } from '../../model/core/dig.ts';
import { scalarText } from '../../model/core/text.ts';
import { WORKLOAD_KINDS, workloadContainers } from '../../model/core/workloads.ts';
import { IMAGE_FACTS_GLOB, imageKey, repoImageNeeds } from '../../model/repository/image-facts.ts';
import { NEEDS } from './needs.ts';
import { setVariables, type Held } from './variables.ts';
import { scrapePathNeeds } from './scrape-paths.ts';
import { slippedImageName, undescribedImages, type Undescribed } from './slipped-names.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { containerEnvironment } from '../../model/cluster/environment.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';

export const imageNeedsCheck: PolicyCheck = {
  id: 'workload-image-needs',
  description: `Every container runs its image the way the image is built to run, as the facts beside its workloads say (${IMAGE_FACTS_GLOB}, read from each image's build): it names the image where its publisher pushes it, with a tag of the publisher's scheme (one that is not does not exist, and the kubelet cannot pull it), and the release of the image it works with only at one release (a node and its server); an image whose init must start as root (it edits /etc/passwd, chowns its folders and drops to PUID/PGID itself through s6-setuidgid or gosu) starts as root with the capabilities the init uses; an image that writes a temporary directory has a writable volume where it looks for one when its root filesystem is read-only, and one whose app writes a directory the image does not give its user has a writable volume there; one whose program works in folders of the node (a device plugin) has each mounted at its own path from a hostPath volume of it; an image whose init is s6-overlay, started as another user than root, has a writable /run and s6's switch for it; an HTTP probe, and a ServiceMonitor's scrape of it, asks a path the image serves at all (any other is a 404; a scrape of the Ceph managers' metrics Service Rook makes, /metrics, where any other path answers an HTML index) and answers without a login (the kubelet never logs in), of the server the facts are of where it has several (a probe of another port is not held to them, and where a volume may hold a file that opens other paths the probes are not judged), no probe asks a path where every request polls what the image watches, and no liveness probe a path that answers only once the app is ready; a setting the image reads from the environment only together with another has both, one it stops without, given the other settings (read as the image defaults them where unset: gluetun's OpenVPN type and provider), is set under its name or an older one (each read as the kubelet sets it: the container's env, then the Secrets and ConfigMaps its envFrom names, by the keys and plain values the repository writes; a source whose keys cannot be known leaves it not judged), none is one its release does not read yet, none is one keystroke (or its letters' case) from a variable the program reads and not itself one, where the facts list every variable it reads (it is read by nothing, and the setting stays at its default), and one it takes in one form only (Unpackerr's app URLs: http:// or https://) is in that form, and so is one set empty where the image reads the empty text in place of its default (Cleanuparr's PUID and PGID). An image no facts describe is not one keystroke from one they do (a registry has no such image, or it is someone else's); any other it is said not judged, once for all its containers. A command names a program the image has on its PATH, as the facts list them (a name one slip from one is refused), and gives a program whose options the facts list only options its argument parser takes (Python argparse: an unknown option stops it with exit 2, and its help option ends it before it serves; kingpin, the flags of Prometheus' Go programs, read in a container's args where they go to the image's ENTRYPOINT: an unknown flag, a value for a flag that takes none, a flag that is not a list given twice or a value its type cannot read stops it with exit 1, and a flag that prints or checks and exits, such as --version or --dry-run, ends it before it serves; Go's own flag package: a flag it does not define, a missing value or one its type cannot read stops it with exit 2, and a value or flags together that the program refuses once its flags are read, exit 1; pflag under cobra: an unknown flag, a missing value, one its type refuses or a count of positional arguments the command does not take, exit 1, and what the program checks of its values as it starts, and under a root that traverses its children (falcoctl's) the words before each command read as its parent's flags, a word naming no command ending it with its usage, exit 0; cxxopts, Falco's: an option it does not have, a missing value or one its type cannot read, exit 1, what it checks of its options in the order of its actions, and an option that prints or runs something else ends it before it serves), and node or python only a script its build makes to run (any other: Cannot find module, or can't open file, exit 2). An image whose own program listens where variables say (a port, an address, or both as [host]:port), where an option of its command line says (the container's args given to its ENTRYPOINT), or on fixed ports (the facts' listens), is told to listen on the pod's address (not loopback alone, nor an address the pod is not given), on every port of the container a probe or a Service names (a probe's number no other container of the pod declares is its own), and on no port twice (EADDRINUSE); each address it gives clients for itself (the facts' selfUrl, one URL or a list) names a host an Ingress routes to it, at a port and scheme the proxy serving that host listens on (its rendered LoadBalancer Service's ports, each entry point's TLS; judged where the proxy's chart renders), or an address a LoadBalancer Service of it asks for. A web app whose facts say where it serves its pages (urlBase: a fixed path, or the variable that sets its URL base) is routed the whole of that base on each host an Ingress sends to it (a page loads its scripts, styles and API calls from under it, and a route beside or below it, or an Exact one, leaves the UI blank), and an app that answers 404 outside its base is probed inside it; an Ingress route to an image whose facts list the only paths it serves forwards one of them (any other request is a 404); a route through a middleware that may rewrite the path, or below the root to an app whose facts say neither, is said not judged. What only the image's entrypoint needs is not asked of a container whose command replaces it. Otherwise the container fails at start, or starts and does nothing, and the API server accepts it (invariants P1).`,
  invariants: ['P1'],
  remediation: `follow the image's facts: run the image under the name and tag scheme its publisher uses, and at the release of the image it is released with; leave runAsUser and runAsNonRoot unset for a root-started image, add the capabilities listed and set PUID/PGID (with a workload-privilege exemption saying why); mount an emptyDir at /tmp for one that writes a temporary directory, and at each directory the facts say the app writes; give an s6-overlay image started as a user an emptyDir at /run and S6_YES_I_WANT_A_WORLD_WRITABLE_RUN_BECAUSE_KUBERNETES=1; probe a path the facts list as served and open, none they list as polling, and for liveness none they list as answering only when ready; set the variable a setting needs beside it, or the one the image stops without; run a release that reads a setting you set; listen on 0.0.0.0 and on the container port that probes and Services name; route the whole of an app's URL base (or / to an app that has none) and set the variable to the path routed, and probe inside the base of an app that answers 404 outside it; or correct the facts in ${IMAGE_FACTS_GLOB}`,
  // The Secrets and ConfigMaps a container's envFrom names set the variables its image's needs read.
  reads: {
    // A CephCluster stands for the manager Services Rook's operator makes, which its monitor scrapes.
    kinds: withKeyProviders(...WORKLOAD_KINDS, 'ServiceMonitor', 'Service', 'Ingress', 'Middleware', 'CephCluster'),
    files: [IMAGE_FACTS_GLOB],
    charts: ['traefik'],
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    const { needs, problems } = repoImageNeeds(ctx.repo);
    for (const p of problems) {
      const data = p.path && ctx.repo.dataFiles.get(p.file);
      ctx.fail(data ? { data, path: p.path! } : { file: p.file }, p.message, `correct the facts in ${p.file}`);
    }
    const undescribed = new Map<string, Undescribed>();
    for (const { resource, pod, c } of workloadContainers(ctx.resources)) {
      const image = scalarText(c.container.image ?? '');
      const need = needs.get(imageKey(image));
      if (!need) {
        const known = undescribed.get(imageKey(image));
        if (known) known.others++;
        else if (!slippedImageName(ctx, { resource, c, image }, needs.values())) undescribed.set(imageKey(image), { image, resource, c, others: 0 });
        continue;
      }
      const sc = dig(c.container, ['securityContext']);
      const namespace = namespaceOrDestination(ctx.repo, resource);
      const environment = containerEnvironment(ctx, namespace, c.container, { secretText: true });
      const held: Held = {
        ctx,
        resource,
        pod,
        c,
        image,
        need,
        where: { resource, path: [...c.at, sc ? 'securityContext' : 'name'] },
        setting: (key) => dig(sc, [key]) ?? dig(pod.spec, ['securityContext', key]),
        env: setVariables(c, environment),
        variable: environment.setting,
      };
      for (const judge of NEEDS) judge(held);
    }
    undescribedImages(ctx, undescribed);
    scrapePathNeeds(ctx, needs);
  },
};

/** The images area: what each image needs of its pod, as its facts say. */
export const imageArea: Area = staticArea('images', [imageNeedsCheck]);
