/** The media apps' settings as code: each app's settings, and the library flow they share. */
import { type PolicyCheck, type Area, staticArea } from '../../model/checks/kit.ts';
import { mediaLibraryChecks } from './library-checks.ts';
import { mediaSettingsChecks } from './settings-checks.ts';
import { mediaTlsChecks } from './tls-checks.ts';

export const settingsChecks: PolicyCheck[] = [...mediaSettingsChecks, ...mediaLibraryChecks, ...mediaTlsChecks];

export const mediaSettingsArea: Area = staticArea('media-settings', settingsChecks);
