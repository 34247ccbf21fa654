/**
 * closure-secret-key: the key a container reads from a Secret or a ConfigMap (env valueFrom secretKeyRef or
 * configMapKeyRef, a volume's items, and an issuer's DNS-01 credentials) is one its provider writes. The kubelet refuses a missing key unless the
 * reference is optional: the container never starts (CreateContainerConfigError). So is a file its env (or a value
 * of a ConfigMap or plain Secret its envFrom names), args or command names under such a volume's mount: the program
 * would find no file. A provider's keys are known when the
 * repository writes them: an ExternalSecret's data[].secretKey (or its template's data), a Certificate's tls.crt,
 * tls.key and ca.crt, a plain Secret's or ConfigMap's data; anything else (dataFrom, a data-less placeholder Secret,
 * a chart not rendered, a controller) is not judged here.
 */
import { clusterIssuerNamespace, issuerSecretRefs, podRefs, podSpecs } from '../../model/cluster/references.ts';
import { storeSecretRefs, templateKeysRead, templateParseProblem } from '../../model/cluster/external-secrets.ts';
import { mountedFile, namedPaths, slippedMount } from '../../model/cluster/mounted-files.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import type { Path } from '../../model/core/positions.ts';
import { keysOf } from '../../model/cluster/provided-keys.ts';
import { givenVariablePath, containerEnvironment } from '../../model/cluster/environment.ts';
import { list, obj } from '../../model/core/dig.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { programWrites, type ProgramWrites } from '../../model/programs/api-writes.ts';
import { IMAGE_FACTS_GLOB } from '../../model/repository/image-facts.ts';

/**
 * Of a file under an optional Secret or ConfigMap that a program the repository runs writes at run time, why it is not
 * there: the key it would be is none the program's facts say it writes (dataKeys). The status page's STATUS_FILE
 * named apart from the writer's status.json serves the built-in snapshot forever.
 */
function unwrittenKey(
  writes: (kind: 'Secret' | 'ConfigMap') => ProgramWrites,
  file: string,
  at: { namespace: string | undefined; optional: { kind: 'Secret' | 'ConfigMap'; name: string; key: string } },
): string | undefined {
  const { kind, name, key } = at.optional;
  const written = writes(kind).keys.get(`${at.namespace ?? ''}/${name}`);
  if (!written || written.keys.has(key)) return undefined;
  return `${file} would be key ${key} of ${kind} ${name}, which ${written.by} writes with only ${[...written.keys].sort().join(', ')} (its image's apiRequests)`;
}

/**
 * A container's strings that name files to its program, with where each stands: its variables' values (its env, and
 * the values of the ConfigMaps and plain Secrets its envFrom names: givenVariables), its args and its command.
 */
function namedStrings(ctx: CheckContext, namespace: string | undefined, container: Record<string, unknown>, at: Path): { text: string; path: Path }[] {
  const { entries } = containerEnvironment(ctx, namespace, container);
  return [
    ...entries.flatMap((e) => (typeof e.value === 'string' ? [{ text: e.value, path: [...at, ...givenVariablePath(e, 'value')] }] : [])),
    ...(['args', 'command'] as const).flatMap((field) =>
      (Array.isArray(container[field]) ? (container[field] as unknown[]) : []).flatMap((v, k) =>
        typeof v === 'string' ? [{ text: v, path: [...at, field, k] }] : [],
      ),
    ),
  ];
}

export const keyClosureCheck: PolicyCheck = {
  id: 'closure-secret-key',
  description:
    "Every key a container reads from a Secret or ConfigMap (env secretKeyRef and configMapKeyRef, volume items), unless optional, and every key an issuer's DNS-01 solver or a secret store's credentials read, is one its provider in the repository writes (an ExternalSecret, a Certificate, a plain object), otherwise the container never starts; every entry of an ExternalSecret's template (data, labels, annotations) parses as External Secrets parses it (Go's text/template with its functions: the sprig map it vendors and its own) and every key it reads is one its data[] gives (External Secrets fails the template on a missing key, and writes no Secret; a dataFrom's keys are the store's, not judged); and every file its env (or a value of a ConfigMap or plain Secret its envFrom names), args or command names under such a volume is one the volume holds (under an optional one a program of the repository writes at run time, a key its image's apiRequests say it writes: dataKeys), and one under no volume is not in a folder one keystroke from a mount of the container (/status/status.json beside a mount at /tsatus), otherwise the program finds no file (invariants P1).",
  invariants: ['P1'],
  remediation: "read a key the Secret or ConfigMap has, or write the key (an ExternalSecret's data[].secretKey)",
  reads: {
    kinds: ['*'],
    everyKind: 'keys are read by pod templates of every workload kind, and written by ExternalSecrets, Certificates and plain objects',
    // Where cert-manager reads a ClusterIssuer's Secrets: its values, or the namespace it is deployed to.
    charts: ['cert-manager'],
    // What the programs write at run time: the keys of an optional ConfigMap or Secret a pod mounts.
    files: [IMAGE_FACTS_GLOB],
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    // The references closure-secret and closure-config-map close, with the keys each reads by name.
    for (const ref of [
      ...podRefs(ctx.repo, ctx.resources),
      ...issuerSecretRefs(ctx.resources, clusterIssuerNamespace(ctx.repo)),
      ...storeSecretRefs(ctx.repo, ctx.resources),
    ]) {
      if ((ref.kind !== 'Secret' && ref.kind !== 'ConfigMap') || ref.optional || !ref.keys) continue;
      // Not written here, or written with keys the gate cannot know: not this check's to judge (closure-secret speaks for a missing Secret).
      const known = keysOf(ctx, { kind: ref.kind, namespace: ref.namespace, name: ref.name });
      if (!known) continue;
      for (const { key, path } of ref.keys.filter((k) => !known.has(k.key)))
        ctx.fail(
          { resource: ref.resource, path },
          `${ref.resource.kind} ${ref.resource.name} reads key ${key} of ${ref.kind} ${ref.name}, which writes only ${[...known].sort().join(', ') || 'no key'}: ${ref.resource.kind.endsWith('Issuer') ? 'the issuer proves no name, so no certificate is issued' : ref.resource.kind.endsWith('SecretStore') ? 'the store cannot authenticate, and no ExternalSecret through it is written' : 'the container does not start'}`,
        );
    }
    // The files a container is told to read (a config file's flag, a CA bundle's variable) under a Secret or ConfigMap.
    const byKind = new Map<string, ProgramWrites>();
    const writes = (kind: 'Secret' | 'ConfigMap') => byKind.get(kind) ?? byKind.set(kind, programWrites(ctx, kind)).get(kind)!;
    for (const r of ctx.resources)
      for (const { spec, at } of podSpecs(r)) {
        const where = { spec, namespace: namespaceOrDestination(ctx.repo, r) };
        for (const field of ['containers', 'initContainers'] as const)
          list(spec[field]).forEach((item, i) => {
            const container = obj(item);
            for (const { text, path } of namedStrings(ctx, where.namespace, container, [...at, field, i]))
              for (const file of namedPaths(text)) {
                const source = mountedFile(ctx, where, container, file);
                const problem =
                  'problem' in source
                    ? source.problem
                    : 'optional' in source && source.optional
                      ? unwrittenKey(writes, file, { namespace: where.namespace, optional: source.optional })
                      : undefined;
                if (problem) ctx.fail({ resource: r, path }, `${r.kind} ${r.name} has its program read ${file}, but ${problem}: the file is not there`);
                const slip = slippedMount(container, file);
                if (slip)
                  ctx.fail(
                    { resource: r, path },
                    `${r.kind} ${r.name} has its program read ${file}, which no volume of the container holds, and it mounts ${slip.mount} at ${slip.mountPath}, one keystroke from ${slip.folder}: the program finds the image's own files there, or none`,
                    `mount ${slip.mount} at ${slip.folder}, or name the file under ${slip.mountPath}`,
                  );
              }
          });
      }
    templateKeys(ctx);
  },
};

/**
 * Whether some entry of an ExternalSecret's template (its data, its metadata's labels and annotations, each executed
 * as a template) is one External Secrets cannot parse: said at the entry, where the sync fails and no Secret is
 * written. Its keys are then not read.
 */
function unparsed(ctx: CheckContext, es: Resource, template: Record<string, unknown>): boolean {
  let found = false;
  for (const at of [['data'], ['metadata', 'labels'], ['metadata', 'annotations']])
    for (const [name, text] of Object.entries(obj(at.reduce<unknown>((o, k) => obj(o)[k], template)))) {
      const problem = typeof text === 'string' ? templateParseProblem(name, text) : undefined;
      if (!problem) continue;
      found = true;
      ctx.fail(
        { resource: es, path: ['spec', 'target', 'template', ...at, name] },
        `ExternalSecret ${es.name}'s template ${name} does not parse as External Secrets parses it (${problem}): the sync fails, and no Secret is written`,
      );
    }
  return found;
}

/**
 * Every key an ExternalSecret's template reads is one its data[] gives: External Secrets executes the template with
 * missingkey=error, so the sync fails and no Secret is written. One with a dataFrom takes the store's keys besides,
 * which the repository does not say: said not judged, once for the ExternalSecrets that read the same store entries.
 */
function templateKeys(ctx: CheckContext): void {
  const fromStore = new Map<string, { es: Resource; keys: Set<string> }[]>();
  for (const es of ctx.resources) {
    if (es.kind !== 'ExternalSecret') continue;
    const spec = obj(es.object.spec);
    const template = obj(obj(spec.target).template);
    if (template.engineVersion === 'v1') continue;
    const given = new Set(
      list(spec.data)
        .map((d) => obj(d).secretKey)
        .filter((k): k is string => typeof k === 'string'),
    );
    if (unparsed(ctx, es, template)) continue;
    const missing = Object.entries(obj(template.data)).flatMap(([name, text]) => {
      if (typeof text !== 'string') return [];
      const read = templateKeysRead(text);
      // A template that moves `.` (range, with, a variable) is not read here: said, never passed.
      if (!read)
        ctx.notJudged(
          { resource: es, path: ['spec', 'target', 'template', 'data', name] },
          `ExternalSecret ${es.name}'s template ${name} moves \`.\` (range, with, a variable, another template): the keys it reads are not judged`,
        );
      return (read ?? []).filter((k) => !given.has(k)).map((key) => ({ name, key }));
    });
    if (missing.length === 0) continue;
    if (list(spec.dataFrom).length > 0) {
      const entries = JSON.stringify(list(spec.dataFrom).map((d) => obj(obj(d).extract).key ?? obj(d).find ?? '?'));
      fromStore.set(entries, [...(fromStore.get(entries) ?? []), { es, keys: new Set(missing.map((m) => m.key)) }]);
      continue;
    }
    for (const { name, key } of missing)
      ctx.fail(
        { resource: es, path: ['spec', 'target', 'template', 'data', name] },
        `ExternalSecret ${es.name}'s template reads ${key} in ${name}, which its data does not give (${[...given].sort().join(', ') || 'none'}): External Secrets fails a template on a missing key (missingkey=error), so the sync fails and no Secret is written`,
      );
  }
  for (const [entries, readers] of fromStore) {
    const keys = [...new Set(readers.flatMap((r) => [...r.keys]))].sort();
    ctx.notJudged(
      { resource: readers[0]!.es, path: ['spec', 'dataFrom'] },
      `the template${readers.length > 1 ? `s of ${readers.length} ExternalSecrets (${readers.map((r) => `${r.es.namespace ?? ''}/${r.es.name}`).join(', ')})` : ` of ExternalSecret ${readers[0]!.es.namespace ?? ''}/${readers[0]!.es.name}`} read ${keys.join(', ')} from the store's entries ${entries} (dataFrom), whose keys the repository does not say: whether each is there is not judged`,
    );
  }
}
