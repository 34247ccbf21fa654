/** The media stack: its apps, their roles and shared library, and their pods. */
import { type PolicyCheck, type Area, staticArea } from '../../model/checks/kit.ts';
import { mediaChecks } from './media.ts';
import { mediaPodChecks } from './pods.ts';
import { shareAccessCheck } from './share-access.ts';
import { exporterStartsCheck } from './exporter-config.ts';
import { gluetunSettingsCheck } from './gluetun-settings.ts';
import { MEDIA_INVARIANTS } from './invariants.ts';

export const mediaAreaChecks: PolicyCheck[] = [...mediaChecks, shareAccessCheck, ...mediaPodChecks, exporterStartsCheck, gluetunSettingsCheck];

export const mediaArea: Area = staticArea('media', mediaAreaChecks, MEDIA_INVARIANTS);
