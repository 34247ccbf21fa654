/**
 * The containers that run one program, each held to the reference the repository keeps of what that program reads at
 * the version it was read for (gluetun's settings, unpoller's variables): a reference that does not read fails once,
 * a missing one or one read for another version than the image's tag is said not judged for that container, and each
 * container the reference fits is handed on.
 */
import type { Resource } from '../core/manifest.ts';
import type { Path } from '../core/positions.ts';
import { scalarText } from '../core/text.ts';
import { containersOf, imageParts, podSpecOf } from '../core/workloads.ts';
import type { ReferenceRead } from '../helm/reference-file.ts';
import type { CheckContext } from './kit.ts';

export interface ProgramContainer<T> {
  workload: Resource;
  container: Record<string, unknown>;
  at: Path;
  name: string;
  reference: T & { version: string };
}

/** Whether a container runs a program's image (its repository's name ends with the program's image, any registry before it). */
export const runsImage = (container: Record<string, unknown>, image: string): boolean => imageParts(scalarText(container.image ?? '')).name.endsWith(image);

export function programContainers<T extends { version: string }>(
  ctx: CheckContext,
  program: { name: string; image: string; file: string; refresh: string; what: string },
  reference: ReferenceRead<T> | undefined,
): ProgramContainer<T>[] {
  if (reference && !reference.ok) {
    ctx.fail({ data: reference.data, path: [] }, `${program.file} cannot be read (${reference.problem}): ${program.what} are not judged`);
    return [];
  }
  const out: ProgramContainer<T>[] = [];
  for (const workload of ctx.resources) {
    const pod = podSpecOf(workload);
    if (!pod) continue;
    for (const { container, at, name } of containersOf(pod)) {
      if (!runsImage(container, program.image)) continue;
      const image = imageParts(scalarText(container.image ?? ''));
      if (!reference) {
        ctx.notJudged({ resource: workload, path: [...at, 'env'] }, `no ${program.file}: ${program.what} are not judged (${program.refresh})`);
        continue;
      }
      if ((image.tag ?? '').replace(/^v/, '') !== reference.version) {
        ctx.notJudged(
          { resource: workload, path: [...at, 'image'] },
          `container ${name} runs ${program.name} ${image.tag ?? '(no tag)'}, the reference was read for ${reference.version}: its settings are judged after a refresh (${program.refresh})`,
        );
        continue;
      }
      out.push({ workload, container, at, name, reference });
    }
  }
  return out;
}
