/** The media stack: its apps, their roles and shared library, and their pods. */
import type { PolicyCheck } from '../kit.ts';
import { mediaChecks } from './media.ts';
import { mediaPodChecks } from './pods.ts';

export const mediaAreaChecks: PolicyCheck[] = [...mediaChecks, ...mediaPodChecks];
