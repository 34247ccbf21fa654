/**
 * closure-api-key: a client sends an app the key the app itself reads. The managers take their API key from the
 * environment (the image facts' `apiKey`), and their clients (exporters, Unpackerr: the facts' `keyFor`) send one
 * from theirs (their env, or a key of a Secret their envFrom names). Each reads its own Secret, and nothing but this check holds the two to one source: a client reading
 * another Secret is accepted by the API server, starts, and gets 401 at every call.
 */
import { dirname } from 'node:path';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { SETTINGS_GLOB, settingsFiles } from '../../model/apps/media-settings.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { storeItemOf } from '../../model/cluster/external-secrets.ts';
import { dig, objects } from '../../model/core/dig.ts';
import type { Path } from '../../model/core/positions.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { givenVariablePath, containerEnvironment, secretKeyOf, type GivenVariable } from '../../model/cluster/environment.ts';
import { serviceIndex, urlPort } from '../../model/cluster/service-addresses.ts';
import { servicePort } from '../../model/cluster/ingress-routes.ts';
import { selectorMatches } from '../../model/core/label-selector.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { scalarText } from '../../model/core/text.ts';
import { podSpecPath, WORKLOAD_KINDS, workloadContainers, type ContainerRef } from '../../model/core/workloads.ts';
import { envNamePattern, IMAGE_FACTS_GLOB, imageKey, repoImageNeeds, type ImageNeeds } from '../../model/repository/image-facts.ts';

type Env = GivenVariable & { valueFrom?: { secretKeyRef?: { name?: unknown; key?: unknown } } };

/** One container of a workload, with the facts of its image and its namespace. */
interface Running {
  resource: Resource;
  c: ContainerRef;
  need: ImageNeeds | undefined;
  namespace: string;
}

/**
 * A container's variables as the kubelet sets them, each an env entry with where it is set (givenVariables: the
 * keys of the Secrets and ConfigMaps its envFrom names, then its env over them), the last of a name the one set.
 */
function variablesOf(ctx: CheckContext, r: Running): { entries: Env[]; at: (name: string) => number } {
  const { entries } = containerEnvironment(ctx, r.namespace, r.c.container);
  return { entries: entries as Env[], at: (name) => entries.findLastIndex((e) => e.name === name) };
}

/** Where an entry is set under its container, and the field of an env entry a finding about its value names. */
const entryPath = (c: ContainerRef, e: Env, field: 'name' | 'value'): Path => [...c.at, ...givenVariablePath(e, field)];

/** Where a variable's value comes from, as far as the gate can tell: a literal, one key of a Secret, or something else. */
type Source = { literal: string } | { secret: string; key: string; namespace: string } | { other: true };
function sourceOf(c: ContainerRef, entry: Env, namespace: string): Source {
  if (typeof entry.value === 'string') return { literal: entry.value };
  const secret = secretKeyOf(c.container, entry);
  return secret ? { ...secret, namespace } : { other: true };
}
const describe = (s: Source): string =>
  'literal' in s ? 'a literal value' : 'secret' in s ? `Secret ${s.namespace}/${s.secret} key ${s.key}` : 'a source the gate does not read';

/** Whether two sources give the same key: 'same', 'different', or 'unknown' when the gate cannot read one of them. */
function sameKey(ctx: CheckContext, a: Source, b: Source): 'same' | 'different' | 'unknown' {
  if ('literal' in a && 'literal' in b) return a.literal === b.literal ? 'same' : 'different';
  if (!('secret' in a) || !('secret' in b)) return 'unknown';
  if (a.namespace === b.namespace && a.secret === b.secret && a.key === b.key) return 'same';
  const [itemA, itemB] = [storeItemOf(ctx.repo, a.namespace, a.secret, a.key), storeItemOf(ctx.repo, b.namespace, b.secret, b.key)];
  if (!itemA || !itemB) return 'unknown';
  return itemA.store === itemB.store && itemA.key === itemB.key && itemA.property === itemB.property ? 'same' : 'different';
}

/** The host and port a client's address names, or undefined when it is no URL. */
function addressOf(text: string): { host: string; port: number } | undefined {
  try {
    const url = new URL(text);
    return { host: url.hostname.replace(/\.$/, ''), port: urlPort(url) };
  } catch {
    return undefined;
  }
}

const LOCAL = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether a container declares the port: by number or by name. */
const serves = (r: Running, port: string): boolean =>
  (objects(r.c.container.ports) as { containerPort?: unknown; name?: unknown }[]).some(
    (p) => scalarText(p.containerPort ?? '') === port || scalarText(p.name ?? '') === port,
  );

/** The containers an address reaches: in the client's own pod for localhost, else in the pods behind the Service it names. */
function reached(ctx: CheckContext, client: Running, all: readonly Running[], address: { host: string; port: number }): Running[] | undefined {
  if (LOCAL.has(address.host)) return all.filter((r) => r.resource === client.resource && r.c !== client.c && serves(r, String(address.port)));
  const [service, namespace = client.namespace, svc] = address.host.split('.');
  if (svc !== undefined && svc !== 'svc') return undefined;
  const found = serviceIndex(ctx.repo, ctx.resources).named(namespace, service!);
  const selector = found && (dig(found.object, ['spec', 'selector']) as Record<string, unknown> | undefined);
  const port = found && servicePort(found, { number: address.port });
  if (!selector || !port) return undefined;
  const target = scalarText(port.targetPort ?? port.port);
  return all.filter((r) => {
    const labels = dig(r.resource.object, [...(podSpecPath(r.resource.kind) ?? []).slice(0, -1), 'metadata', 'labels']) as Record<string, unknown> | undefined;
    return r.namespace === namespace && serves(r, target) && selectorMatches({ matchLabels: selector }, labels);
  });
}

/** One address a client names and the key it sends there: where the address is said, and the key variable's entry. */
interface KeyPair {
  address: string;
  urlName: string;
  keyName: string;
  /** Where the address is written: the address variable, or the key's own entry when a settings file holds it. */
  addressPath: Path;
  key: Env;
}

/** The settings file beside a client's workload (`settings/` in its folder) that names the apps it calls. */
function settingAt(ctx: CheckContext, client: Running, setting: string): { value: string; file: string } | undefined {
  const folder = `${dirname(client.resource.file)}/settings`;
  for (const f of settingsFiles(ctx.repo).filter((x) => dirname(x.file) === folder)) {
    const value = dig(f.data, setting.split('.'));
    if (typeof value === 'string' && value !== '') return { value, file: f.file };
  }
  return undefined;
}

/** Every pair of the client's facts it sets: the address (a variable's value, or its settings file's) and the key variable's entry. */
function* keyPairs(ctx: CheckContext, client: Running): Generator<KeyPair> {
  const { entries, at: keyAt } = variablesOf(ctx, client);
  for (const pair of client.need?.keyFor ?? []) {
    if ('setting' in pair) {
      const [named, keyIndex] = [settingAt(ctx, client, pair.setting), keyAt(pair.key)];
      if (named && keyIndex !== -1)
        yield {
          address: named.value,
          urlName: `${pair.setting} in ${named.file}`,
          keyName: pair.key,
          addressPath: entryPath(client.c, entries[keyIndex]!, 'name'),
          key: entries[keyIndex]!,
        };
      continue;
    }
    for (const [urlIndex, entry] of entries.entries()) {
      if (typeof entry.name !== 'string' || typeof entry.value !== 'string' || keyAt(entry.name) !== urlIndex) continue;
      const match = envNamePattern(pair.url).exec(entry.name);
      if (!match) continue;
      const keyName = pair.key.replace('*', match[1] ?? '');
      const keyIndex = keyAt(keyName);
      if (keyIndex !== -1)
        yield { address: entry.value, urlName: entry.name, keyName, addressPath: entryPath(client.c, entry, 'value'), key: entries[keyIndex]! };
    }
  }
}

function judgeClient(ctx: CheckContext, client: Running, all: readonly Running[]): void {
  for (const { address, urlName, keyName, addressPath, key } of keyPairs(ctx, client)) {
    const where = { resource: client.resource, path: entryPath(client.c, key, 'value') };
    const parsed = addressOf(address);
    const servers = parsed && reached(ctx, client, all, parsed);
    // An address that reaches no pod of the repository is closure-service's to judge.
    if (!servers || servers.length === 0) continue;
    const keyed = servers.filter((s) => s.need?.apiKey !== undefined);
    if (keyed.length === 0) {
      ctx.notJudged(
        { resource: client.resource, path: addressPath },
        `container ${client.c.name} sends ${keyName} to ${address}, whose app reads its API key from a place its image facts do not name (its own settings): whether the two keys agree is not read`,
      );
      continue;
    }
    const sent = sourceOf(client.c, key, client.namespace);
    for (const server of keyed) {
      const { entries, at } = variablesOf(ctx, server);
      const entry = entries[at(server.need!.apiKey!)];
      // An app without its key variable is workload-image-needs' to judge (envNeeds).
      if (!entry) continue;
      const held = sourceOf(server.c, entry, server.namespace);
      const verdict = sameKey(ctx, sent, held);
      const app = `${server.resource.kind} ${server.resource.name}'s ${server.c.name}`;
      if (verdict === 'different')
        ctx.fail(
          where,
          `container ${client.c.name} sends ${app} (${urlName}=${address}) the key in ${describe(sent)}, but the app takes its own key (${server.need!.apiKey}) from ${describe(held)}: another key, so every call gets 401`,
        );
      else if (verdict === 'unknown')
        ctx.notJudged(
          where,
          `container ${client.c.name} sends ${app} the key in ${describe(sent)}, and the app takes its own from ${describe(held)}: whether they hold the same key is not read`,
        );
    }
  }
}

export const apiKeyClosureCheck: PolicyCheck = {
  id: 'closure-api-key',
  description: `Every client of an app that takes its API key from the environment sends it the same key: a container whose image calls other apps (the image facts' keyFor, ${IMAGE_FACTS_GLOB}) and names one by its address (in its own pod at localhost, or through a Service) reads its key from the same Secret key, or a Secret copied from the same store item, as the app reads its own (the facts' apiKey); otherwise every call gets 401, and the API server accepts both (invariants P1).`,
  invariants: ['P1'],
  remediation: "read the client's key from the Secret the app reads its own key from (or one copied from the same store item), or correct the facts",
  reads: { kinds: withKeyProviders(...WORKLOAD_KINDS, 'Service'), files: [IMAGE_FACTS_GLOB, SETTINGS_GLOB], renders: true },
  exemptible: false,
  run(ctx) {
    // Unreadable facts are workload-image-needs' to report; here an entry that cannot be read is no fact.
    const { needs } = repoImageNeeds(ctx.repo);
    const all: Running[] = [...workloadContainers(ctx.resources)].map(({ resource, c }) => ({
      resource,
      c,
      need: needs.get(imageKey(scalarText(c.container.image ?? ''))),
      namespace: '',
    }));
    const clients = all.filter((r) => r.need?.keyFor);
    if (clients.length === 0) return;
    for (const r of all) r.namespace = namespaceOrDestination(ctx.repo, r.resource) ?? '';
    for (const client of clients) judgeClient(ctx, client, all);
  },
};
