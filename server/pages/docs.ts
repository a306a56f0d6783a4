// The API references, served by Till itself and readable offline: both bundled contracts as JSON
// (`/openapi/checkout.json`, `/openapi/commerce.json`, byte for byte `generated/*.openapi.json`) and
// `/docs`, where Redoc renders them. Redoc is the standalone bundle that @redocly/cli ships (the
// same renderer its `build-docs` inlines), served from node_modules: the page loads nothing from
// any other origin, and its Content-Security-Policy says so.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type Response, Router } from 'express';
import { projectFile } from '../shared/project-root.js';
import { html } from './kit/html.js';

/** Where the start banner and the README send people. */
export const DOCS_PATH = '/docs';

const REFERENCES = {
  checkout: {
    title: 'Checkout & Billing API',
    summary:
      'Checkout sessions, cards, holds, refunds, subscriptions, plans, customers, products, invoices, webhooks and events. Bearer keys (sk_…, pk_… with X-Client-Secret).',
  },
  commerce: {
    title: 'Commerce API',
    summary:
      'Invoices, invoice payments, funding sources, accounts, transfers, dashboards, payment links, the OData-style subscription catalog and the notification hub. Header x-api-key.',
  },
} as const;
type Reference = keyof typeof REFERENCES;

/** Redoc's standalone bundle: in @redocly/cli (a development dependency), or where `npm run build` copied it. */
const REDOC_BUNDLES = ['node_modules/@redocly/cli/lib/chunks/redoc.standalone.js', 'dist/docs/redoc.js'];

/**
 * Starts Redoc on the page's `#reference` element, without telemetry. The contract's server is a
 * template (`{baseUrl}`, http://localhost:3000 by default); the page names the server it came from
 * instead, so every URL it shows reaches this server.
 */
const START_SCRIPT = `import { init } from './redoc.js';
import { thisServer } from './this-server.js';
const element = document.getElementById('reference');
const spec = await thisServer(element.dataset.specUrl);
init(spec, { disableTelemetry: true, hideDownloadButtons: false, expandResponses: '200,201' }, element);
`;

/** The contract at `url`, its servers replaced by the origin the page was served from. */
const THIS_SERVER_SCRIPT = `export async function thisServer(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(url + ' answered ' + res.status);
  const spec = await res.json();
  spec.servers = [{ url: location.origin, description: 'This Till server' }];
  return spec;
}
`;

/**
 * The "try it" page: Swagger UI (swagger-ui-dist, a dependency) on the same contract, its server this
 * one. The reader gives a key in its Authorize dialog; the key stays in the page (not stored).
 */
const TRY_SCRIPT = `import { thisServer } from './this-server.js';
const element = document.getElementById('try');
const spec = await thisServer(element.dataset.specUrl);
window.SwaggerUIBundle({ spec, domNode: element, tryItOutEnabled: true, persistAuthorization: false, deepLinking: true,
  docExpansion: 'none', defaultModelsExpandDepth: -1, filter: true, validatorUrl: null });
`;

/** Swagger UI's files the try page loads, by name, with their types. */
const SWAGGER_UI_FILES: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
};

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Redoc styles its components at run time (styled-components): inline style elements.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const once = <T>(load: () => Promise<T>) => {
  let value: Promise<T> | undefined;
  return () => (value ??= load().catch((err) => ((value = undefined), Promise.reject(err))));
};
const contractOf = {
  checkout: once(() => readFile(projectFile('generated/checkout.openapi.json'))),
  commerce: once(() => readFile(projectFile('generated/commerce.openapi.json'))),
};
const swaggerUiDir = once(async () => path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json')));
const redocBundle = once(async () => {
  for (const file of REDOC_BUNDLES) {
    const bundle = await readFile(projectFile(file)).catch(() => undefined);
    if (bundle) return bundle;
  }
  throw new Error(
    `Redoc's bundle is not installed (looked for ${REDOC_BUNDLES.join(' and ')}): run npm install, or npm run build with development dependencies.`,
  );
});

function pageHeaders(res: Response, type: string, cache: string): void {
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Security-Policy', CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', cache);
}

const shell = (title: string, body: ReturnType<typeof html>) => html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title></head>
<body style="margin:0">${body}</body></html>`;

function indexPage(): string {
  const items = (Object.keys(REFERENCES) as Reference[]).map(
    (name) =>
      html`<li><a href="${DOCS_PATH}/${name}">${REFERENCES[name].title}</a>: ${REFERENCES[name].summary} (<a href="/openapi/${name}.json">OpenAPI document</a>)</li>`,
  );
  return shell(
    'Till API reference',
    html`<main style="font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:3rem auto;padding:0 1rem">
<h1>Till API reference</h1><p>Till serves two interfaces over one domain:</p><ul>${items}</ul>
<p>Events and webhooks: see the Events section of the Checkout &amp; Billing reference.</p></main>`,
  ).toString();
}

function referencePage(name: Reference): string {
  return shell(
    `Till ${REFERENCES[name].title}`,
    html`<nav style="font:14px system-ui,sans-serif;padding:.5rem 1rem;border-bottom:1px solid #ddd">
<a href="${DOCS_PATH}">Till API reference</a> · <a href="${DOCS_PATH}/checkout">${REFERENCES.checkout.title}</a> · <a href="${DOCS_PATH}/commerce">${REFERENCES.commerce.title}</a> · <a href="${DOCS_PATH}/${name}/try">Try it with your key</a></nav>
<div id="reference" data-spec-url="/openapi/${name}.json"></div>
<script type="module" src="${DOCS_PATH}/assets/start.js"></script>`,
  ).toString();
}

function tryPage(name: Reference): string {
  return shell(
    `Try the Till ${REFERENCES[name].title}`,
    html`<nav style="font:14px system-ui,sans-serif;padding:.5rem 1rem;border-bottom:1px solid #ddd">
<a href="${DOCS_PATH}">Till API reference</a> · <a href="${DOCS_PATH}/${name}">${REFERENCES[name].title}</a> · Try it: <b>Authorize</b> with your test key, then <b>Try it out</b> on an operation</nav>
<link rel="stylesheet" href="${DOCS_PATH}/assets/swagger-ui/swagger-ui.css">
<div id="try" data-spec-url="/openapi/${name}.json"></div>
<script src="${DOCS_PATH}/assets/swagger-ui/swagger-ui-bundle.js"></script>
<script type="module" src="${DOCS_PATH}/assets/try.js"></script>`,
  ).toString();
}

/** A script of the pages, by name. */
function serveScript(app: Router, file: string, text: string): void {
  app.get(`${DOCS_PATH}/assets/${file}`, (_req, res) => {
    pageHeaders(res, 'text/javascript; charset=utf-8', 'no-cache');
    res.send(text);
  });
}

/** `/openapi/{checkout,commerce}.json` and `/docs`: no key, nothing from another origin. */
export function docsPages(): Router {
  const app = Router({ caseSensitive: true, strict: false });
  for (const name of Object.keys(REFERENCES) as Reference[]) {
    app.get(`/openapi/${name}.json`, async (_req, res, next) => {
      try {
        res.setHeader('Access-Control-Allow-Origin', '*');
        res.type('application/json').setHeader('Cache-Control', 'no-cache');
        res.send(await contractOf[name]());
      } catch (err) {
        next(err);
      }
    });
    app.get(`${DOCS_PATH}/${name}`, (_req, res) => {
      pageHeaders(res, 'text/html; charset=utf-8', 'no-cache');
      res.send(referencePage(name));
    });
    app.get(`${DOCS_PATH}/${name}/try`, (_req, res) => {
      pageHeaders(res, 'text/html; charset=utf-8', 'no-cache');
      res.send(tryPage(name));
    });
  }
  app.get(DOCS_PATH, (_req, res) => {
    pageHeaders(res, 'text/html; charset=utf-8', 'no-cache');
    res.send(indexPage());
  });
  serveScript(app, 'start.js', START_SCRIPT);
  serveScript(app, 'this-server.js', THIS_SERVER_SCRIPT);
  serveScript(app, 'try.js', TRY_SCRIPT);
  app.get(`${DOCS_PATH}/assets/swagger-ui/:file`, async (req, res, next) => {
    const type = Object.hasOwn(SWAGGER_UI_FILES, req.params.file) ? SWAGGER_UI_FILES[req.params.file] : undefined;
    if (!type) return next();
    try {
      const body = await readFile(path.join(await swaggerUiDir(), req.params.file));
      pageHeaders(res, type, 'public, max-age=3600');
      res.send(body);
    } catch (err) {
      next(err);
    }
  });
  app.get(`${DOCS_PATH}/assets/redoc.js`, async (_req, res, next) => {
    try {
      const bundle = await redocBundle();
      pageHeaders(res, 'text/javascript; charset=utf-8', 'public, max-age=3600');
      res.send(bundle);
    } catch (err) {
      next(err);
    }
  });
  return app;
}
