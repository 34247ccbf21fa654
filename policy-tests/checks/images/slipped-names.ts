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
): void {
  const meant = slippedFrom(image, described);
  if (!meant) return;
  ctx.fail(
    { resource, path: [...c.at, 'image'] },
    `container ${c.name} runs ${image}, one keystroke from ${meant.image} (described in ${meant.file}), and no facts describe it: the registry has no such image and the kubelet cannot pull it (ImagePullBackOff), or it is someone else's image under a near name`,
    `run ${meant.image}, or describe the image in ${IMAGE_FACTS_GLOB} if it is meant`,
  );
}
