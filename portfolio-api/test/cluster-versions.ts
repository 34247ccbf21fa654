/**
 * The Kubernetes and Talos versions of the cluster, read from the repository's
 * one facts file, so that the API's fixtures and fakes follow it when it moves.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const factsFile = fileURLToPath(new URL('../../clusters/home/cluster-facts.yaml', import.meta.url));
const facts = (parse(readFileSync(factsFile, 'utf8')) as { data: { kubernetesVersion: string; talosVersion: string } }).data;

/** As the status file carries them: `v1.36.3`, `v1.13.9`. */
export const CLUSTER_VERSIONS = { kubernetes: `v${facts.kubernetesVersion}`, talos: facts.talosVersion };
export const KUBERNETES_MINOR = facts.kubernetesVersion.split('.')[1]!;
