/** Alert routing: what reaches chat, the webhooks that reach Alertmanager from outside, and the files its configuration reads. */
import { type PolicyCheck, type Area, staticArea } from '../../model/checks/kit.ts';
import { chatTextCheck, routingCheck } from './routing.ts';
import { webhookCheck } from './webhooks.ts';
import { secretFilesCheck } from './secret-files.ts';
import { alertmanagerConfigCheck } from './config-loads.ts';

export const alertRoutingChecks: PolicyCheck[] = [routingCheck, chatTextCheck, webhookCheck, secretFilesCheck, alertmanagerConfigCheck];

export const alertRoutingArea: Area = staticArea('alert-routing', alertRoutingChecks);
