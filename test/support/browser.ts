// Debian's Chromium for the page tests, driven by playwright-core (never a downloaded browser).
// Without it the page tests are skipped and say why; with TILL_REQUIRE_BROWSER=1 (CI) a missing
// browser fails the run instead.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';
/** What Chromium needs in this sandbox: no setuid sandbox, no GPU, and no calls home (the network is closed). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const browserAvailable = existsSync(CHROMIUM);

if (!browserAvailable) {
  if (process.env.TILL_REQUIRE_BROWSER === '1')
    throw new Error(`${CHROMIUM} is missing and TILL_REQUIRE_BROWSER=1: install it with \`apt-get install -y chromium\`.`);
  console.warn(`page tests skipped: ${CHROMIUM} is missing. Install Debian's Chromium (\`apt-get install -y chromium\`) to run them.`);
}

/** `describe` for tests that drive a page in Chromium: skipped (and reported as skipped) without it. */
export const describeInBrowser = browserAvailable ? describe : describe.skip;

/**
 * Debian's Chromium, headless, with a profile of its own in a temporary directory (`label` names
 * it); closing the context also removes the directory.
 */
export async function launchChromium(label: string, options: { viewport?: { width: number; height: number } } = {}): Promise<BrowserContext> {
  const userDataDir = await mkdtemp(path.join(tmpdir(), `till-${label}-chromium-`));
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, ...options });
  const close = context.close.bind(context);
  context.close = async (...args: Parameters<BrowserContext['close']>) => {
    await close(...args);
    await rm(userDataDir, { recursive: true, force: true });
  };
  return context;
}

/**
 * The file's Chromium (`launchChromium`): launched before its first test, closed after its last.
 * Call it at the top of the file and read it inside tests: `browser().newPage()`.
 */
export function useChromium(label: string, options: { viewport?: { width: number; height: number } } = {}): () => BrowserContext {
  let context: BrowserContext | undefined;
  beforeAll(async () => {
    context = await launchChromium(label, options);
  });
  afterAll(async () => {
    await context?.close();
    context = undefined;
  });
  return () => {
    if (!context) throw new Error('useChromium(): Chromium starts before the first test of the file; read it inside a test');
    return context;
  };
}
