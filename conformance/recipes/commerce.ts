// The recipes of the Commerce interface: funds, the subscription catalog, identity, payment links.
import { catalogRecipes } from './commerce-catalog.js';
import { fundsRecipes } from './commerce-funds.js';
import { identityRecipes } from './commerce-identity.js';
import { linkRecipes } from './commerce-links.js';
import type { Recipe } from './fixtures.js';

/** Every Commerce recipe. */
export const commerceRecipes: Record<string, Recipe> = { ...fundsRecipes, ...catalogRecipes, ...identityRecipes, ...linkRecipes };
