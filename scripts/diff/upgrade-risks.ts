/**
 * What a change to the cluster facts asks of the cluster. Their Talos and Kubernetes versions are what the nodes
 * run, and a person moves the nodes with talosctl (docs/bare-metal-to-running.md); merging the facts moves
 * nothing. So a move is said as the upgrade it asks for, judged as talosctl judges it (the model's
 * talos-facts.ts): a path talosctl refuses, or one the facts cannot judge, is for a person to review, and so
 * is a minor; a patch is news.
 */
import { facts } from '../../policy-tests/index.ts';

/** The moves a changed object asks for, one line each, with whether a person must look: none unless it is the cluster facts. */
export function upgradeRisk(kind: string, a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): { line: string; review: boolean }[] {
  const name = (o: Record<string, unknown> | undefined) => (o?.metadata as { name?: unknown } | undefined)?.name;
  if (kind !== 'ConfigMap' || !a || !b || name(b) !== facts.CLUSTER_FACTS_NAME || name(a) !== facts.CLUSTER_FACTS_NAME) return [];
  const order = facts.upgradeOrder(a, b);
  const both = order?.refusal ?? (order?.notJudged ? `not judged: ${order.notJudged}` : order?.order);
  const moves = facts.versionMoves(a, b).map((m) => {
    const head = `${m.what} ${m.from} -> ${m.to}`;
    if (m.refusal) return { line: `${head}: ${m.refusal}`, review: true };
    if (m.notJudged) return { line: `${head}: not judged: ${m.notJudged}`, review: true };
    // The commands as the runbook gives them (docs/bare-metal-to-running.md, "Upgrading Talos and Kubernetes").
    const step = m.what === 'Kubernetes' ? `talosctl upgrade-k8s --to ${m.to}` : `talosctl upgrade --image <the node's installer>:${m.to}, one node at a time`;
    return m.minorMoved
      ? { line: `${head}: a cluster upgrade a person makes (${step}), on a path talosctl takes`, review: true }
      : { line: `${head}: a patch the nodes take with ${step}`, review: false };
  });
  return both ? [...moves, { line: `Talos and Kubernetes both move: ${both}`, review: true }] : moves;
}

/**
 * A chart bump where the chart upgrades one minor at a time (`why`: its Application's upgrades-one-minor-at-a-time
 * annotation, the reason it gives): past the next minor, or to another major, it is for a person, with the step to
 * take first. Undefined when the bump is a step the chart takes, or the chart does not say.
 */
export function chartStepRisk(why: string | undefined, from: string, to: string): string | undefined {
  if (!why) return undefined;
  const { step, next } = facts.minorStep(from, to);
  if (step === 'major') return `${from} -> ${to} moves to another major, and this chart upgrades one minor at a time (${why})`;
  const first = `${from.startsWith('v') ? 'v' : ''}${next}`;
  if (step === 'skip') return `${from} -> ${to} skips ${first}, and this chart upgrades one minor at a time (${why}): take ${first} first`;
  return undefined;
}

/**
 * A change that moves the cluster's Kubernetes minor and changes other objects too: the gate judges those at the new
 * version only, while the cluster runs the old one until a person upgrades it. Moved alone, the version is judged at
 * both (main's gate at the old, the change's at the new). Undefined when the minor stays or nothing else changes.
 */
export function upgradeWindowRisk(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined, others: number): string | undefined {
  if (!a || !b || others === 0) return undefined;
  const move = facts.versionMoves(a, b).find((m) => m.what === 'Kubernetes' && m.minorMoved);
  if (!move) return undefined;
  return `Kubernetes ${move.from} -> ${move.to} in a change that also changes ${others} other object(s): they are judged at ${move.to} only, and the cluster runs ${move.from} until it is upgraded; move the version in a change of its own`;
}
