/**
 * Privilege is never inherited silently: a workload names each privilege an exemption or an unguarded namespace lets
 * it hold (named.ts), and no binding grants a role to a subject that stands for many identities (rbac-subjects.ts).
 */
import { type Area, staticArea } from '../../model/checks/kit.ts';
import { privilegeChecks } from './named.ts';
import { broadSubjectCheck } from './rbac-subjects.ts';

export const privilegeArea: Area = staticArea('privileges', [...privilegeChecks, broadSubjectCheck]);
