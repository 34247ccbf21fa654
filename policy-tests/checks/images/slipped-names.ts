/**
 * An image one keystroke from an image the facts describe, with no facts of its own. A registry answers a name it
 * does not hold with "not found" (the kubelet's ErrImagePull, then ImagePullBackOff), and a name it does hold under
 * one slip is someone else's image; the API server takes either. The facts are the repository's own list of the images
 * it means to run, so a near miss of one of them is the finding, and a real image that happens to sit one slip away is
 * mended by giving it facts of its own.
 */
import type { CheckContext } from '../../model/checks/kit.ts';
import { onePartSlipped } from '../../model/core/did-you-mean.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { ContainerRef } from '../../model/core/workloads.ts';
import { IMAGE_FACTS_GLOB, imageKey, type ImageNeeds } from '../../model/repository/image-facts.ts';

/** The described image `image` is one slip from (one part of its path, registry included, one keystroke off), if any. */
export function slippedFrom(image: string, described: Iterable<ImageNeeds>): ImageNeeds | undefined {
  const parts = imageKey(image).split('/');
  for (const need of described) if (onePartSlipped(parts, imageKey(need.image).split('/'))) return need;
  return undefined;
}

/** Fails a container whose image, which no facts describe, is one slip from one that facts do. */
export function slippedImageName(
  ctx: CheckContext,
  { resource, c, image }: { resource: Resource; c: ContainerRef; image: string },
  described: Iterable<ImageNeeds>,
): boolean {
  const meant = slippedFrom(image, described);
  if (!meant) return false;
  ctx.fail(
    { resource, path: [...c.at, 'image'] },
    `container ${c.name} runs ${image}, one keystroke from ${meant.image} (described in ${meant.file}), and no facts describe it: the registry has no such image and the kubelet cannot pull it (ImagePullBackOff), or it is someone else's image under a near name`,
    `run ${meant.image}, or describe the image in ${IMAGE_FACTS_GLOB} if it is meant`,
  );
  return true;
}

/** A container of an image no facts describe, and the containers of it after the first. */
export interface Undescribed {
  image: string;
  resource: Resource;
  c: ContainerRef;
  others: number;
}

/**
 * Says each image no facts describe not judged, once, at its first container: how it is built to run (the programs
 * on its PATH, the user it starts as, the folders it writes, where it listens) is what the facts tell the gate, and
 * a new image, or one put in place of another, passes none of those checks by being unknown.
 */
export function undescribedImages(ctx: CheckContext, images: ReadonlyMap<string, Undescribed>): void {
  for (const { image, resource, c, others } of images.values())
    ctx.notJudged(
      { resource, path: [...c.at, 'image'] },
      `container ${c.name} runs ${image}${others ? ` (and ${others} other container${others === 1 ? '' : 's'})` : ''}, which no image facts describe (${IMAGE_FACTS_GLOB}): how the image is built to run, its programs, its user, the folders it writes and where it listens, is not judged`,
    );
}
