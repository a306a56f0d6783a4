// The static parts of the hosted pages: the stylesheet, and the browser scripts, bundled from
// `web/` with esbuild on first request (the generated SDK inside), kept in memory with an ETag.
// esbuild itself is loaded then too, not at every start.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type RequestHandler, type Response, Router } from 'express';
import { projectFile } from '../../shared/project-root.js';

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

const WEB = projectFile('web/');

/** The browser bundles and their entry points. */
const SCRIPTS: Record<string, string> = {
  '/assets/checkout.js': 'checkout.ts',
  '/assets/invoice.js': 'invoice.ts',
  '/js/till.js': 'till.ts',
};

const asset = (body: Buffer, type: string): Asset => ({ body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` });

async function bundle(entry: string): Promise<Asset> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, WEB))],
    bundle: true,
    format: entry === 'till.ts' ? 'iife' : 'esm',
    platform: 'browser',
    target: ['es2020'],
    minify: true,
    write: false,
    legalComments: 'none',
  });
  return asset(Buffer.from(result.outputFiles[0]!.contents), 'text/javascript; charset=utf-8');
}

function send(res: Response, a: Asset, ifNoneMatch: string | undefined, crossOrigin: boolean): void {
  res.setHeader('ETag', a.etag);
  res.setHeader('Cache-Control', 'public, max-age=300');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (crossOrigin) res.setHeader('Access-Control-Allow-Origin', '*');
  if (ifNoneMatch === a.etag) return void res.status(304).end();
  res.type(a.type).send(a.body);
}

/** Serves `/assets/page.css`, `/assets/dashboard.css`, `/assets/checkout.js` and `/js/till.js` (the embedded form's loader, loaded by merchants' pages). */
export function pageAssets(): RequestHandler {
  const css = asset(readFileSync(projectFile('server/pages/kit/page.css')), 'text/css; charset=utf-8');
  const dashboardCss = asset(readFileSync(projectFile('server/pages/dashboard/dashboard.css')), 'text/css; charset=utf-8');
  const scripts = new Map<string, Promise<Asset>>();
  const router = Router();
  router.get('/assets/page.css', (req, res) => send(res, css, req.get('if-none-match'), false));
  router.get('/assets/dashboard.css', (req, res) => send(res, dashboardCss, req.get('if-none-match'), false));
  for (const [path, entry] of Object.entries(SCRIPTS)) {
    router.get(path, async (req, res, next) => {
      try {
        if (!scripts.has(path))
          scripts.set(
            path,
            bundle(entry).catch((err) => (scripts.delete(path), Promise.reject(err))),
          );
        send(res, await scripts.get(path)!, req.get('if-none-match'), path === '/js/till.js');
      } catch (err) {
        next(err);
      }
    });
  }
  return router;
}
