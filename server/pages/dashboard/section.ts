// What a dashboard section is: a page (or a few) under /dashboard/<path>, a label in the
// navigation, and the scopes a restricted key needs to see it. Its actions (form POSTs) name the
// scopes of the API operations they run. docs/dashboard.md, "Adding a section", shows one.
import type { Request, Response } from 'express';
import type { AppDeps } from '../../api/types.js';
import type { AuditTrail } from '../../db/audit-trail.js';
import type { Db } from '../../db/database.js';
import type { DashboardAccess, SessionKey } from '../../domain/merchants/dashboard-session.service.js';
import type { Clock } from '../../shared/clock.js';
import type { Tenant } from '../../shared/tenant.js';

/** An entry of the navigation: a section the key may see. */
export interface NavItem {
  path: string;
  label: string;
}

/** What every dashboard handler is given: the signed-in tenant and what its key may do. */
export interface DashboardContext {
  deps: AppDeps;
  db: Db;
  /** The tenant's clock: in test mode its sandbox clock, as the API's handlers read it. */
  clock: Clock;
  tenant: Tenant;
  merchantName: string;
  key: SessionKey;
  modes: DashboardAccess['modes'];
  /** The form token: every form carries it (`csrfField`), every POST is checked against it. */
  csrf: string;
  /** Whether the key holds every one of these scopes (a secret key holds all). */
  can(...scopes: string[]): boolean;
  /** The sections this key may see, for the navigation. */
  nav: readonly NavItem[];
  /** The audit trail of this session's changes (actor: the dashboard session), for the services the API audits. */
  audit: AuditTrail;
}

/** Handles a request of a section, for a signed-in key that holds the section's (and the action's) scopes. */
export type DashboardHandler = (req: Request, res: Response, ctx: DashboardContext) => Promise<void>;

/** How a section declares its pages and actions; paths are relative to the section's own (`/`, `/:id`, `/:id/refund`). */
export interface SectionRoutes {
  /** A page: needs the section's scopes. */
  get(path: string, handler: DashboardHandler): void;
  /** An action (a form POST, CSRF-checked): needs the section's scopes and `scopes`, those of the API operation it runs. */
  post(path: string, scopes: readonly string[], handler: DashboardHandler): void;
}

export interface DashboardSection {
  /** The address under /dashboard: `''` for the home page, `'payments'`. */
  path: string;
  /** The navigation's label, and the page title's start. */
  label: string;
  /**
   * The scopes a restricted key needs to see the section at all: those of the API's read
   * operations it shows (`payment.read`). A secret key holds every scope.
   */
  scopes: readonly string[];
  /** Only in test mode (the test clock): hidden in live mode and refused there. */
  testModeOnly?: boolean;
  /** Declares the section's pages and actions. */
  routes(r: SectionRoutes): void;
}

/** The address of a section's page: `sectionHref('payments', '/42')` → `/dashboard/payments/42`. */
export const sectionHref = (path: string, rest = ''): string => `/dashboard${path ? `/${path}` : ''}${rest}`;
