#!/usr/bin/env node
// Shows the guides as a reader on GitHub sees them: each Markdown file rendered as GitHub-flavoured
// Markdown (marked, GFM) with GitHub's stylesheet (github-markdown-css) in Debian's Chromium, a
// screenshot at each width, and what a reader would trip on. Not part of `npm test`: run it after
// changing a guide, then look at the pictures.
/* global document -- findings() and the page height run in the browser */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HELP = `Usage: node scripts/docs-look.mjs [options] [file.md ...]

Renders each Markdown file as GitHub does (GFM, github-markdown-css, a 980 px column) in
/usr/bin/chromium, screenshots it at each width (the whole page, and tiles a viewer can show),
and prints what a reader would trip on: a code block or an ASCII picture wider than the column
(GitHub scrolls it sideways), a table wider than the column, a broken image, a heading that
skips a level, a guide over 300 lines. Code blocks and tables are only reported at the first
width: on a phone GitHub scrolls them all. Without files: README.md, CONTRIBUTING.md, docs/**,
conformance/README.md, sdk/README.md and openapi/CONVENTIONS.md.

Options:
  --out DIR        where the pages and screenshots go (default: out/docs-look)
  --widths LIST    viewport widths in px, comma-separated (default: 1280,390)
  --no-shots       report only, take no screenshots
  -h, --help       this text`;

function options() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: { out: { type: 'string' }, widths: { type: 'string' }, 'no-shots': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    console.error(`docs-look: ${err.message}\n\n${HELP}`);
    process.exit(2);
  }
}

const markdownUnder = (dir) =>
  readdirSync(path.join(root, dir), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? markdownUnder(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : []))
    .sort();
const GUIDES = () => ['README.md', 'CONTRIBUTING.md', ...markdownUnder('docs'), 'conformance/README.md', 'sdk/README.md', 'openapi/CONVENTIONS.md'];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
function renderer(Marked) {
  const seen = new Map();
  const slug = (text) =>
    text
      .toLowerCase()
      .replace(/<[^>]+>/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .trim()
      .replace(/\s/g, '-');
  return new Marked({ gfm: true }).use({
    renderer: {
      heading({ tokens, depth, text }) {
        const base = slug(text);
        const n = seen.get(base) ?? 0;
        seen.set(base, n + 1);
        return `<h${depth} id="${n ? `${base}-${n}` : base}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
    },
  });
}

function page(file, { Marked, css }) {
  const body = renderer(Marked).parse(readFileSync(path.join(root, file), 'utf8'));
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<base href="file://${path.dirname(path.join(root, file))}/"><style>${css}
.markdown-body{box-sizing:border-box;min-width:200px;max-width:980px;margin:0 auto;padding:45px}
@media (max-width:767px){.markdown-body{padding:15px}}</style></head>
<body><article class="markdown-body">${body}</article></body></html>`;
}

/** What a reader trips on in the page as laid out now (runs in the browser). */
function findings() {
  const found = [];
  for (const pre of document.querySelectorAll('pre'))
    if (pre.scrollWidth > pre.clientWidth + 1) {
      const longest = Math.max(...pre.textContent.split('\n').map((l) => l.length));
      const kind = /[│▼─┌└├]/.test(pre.textContent) ? 'picture' : 'code';
      found.push(`${kind} wider than the column (${longest} characters): ${pre.textContent.trim().split('\n')[0].slice(0, 60)}`);
    }
  for (const t of document.querySelectorAll('table'))
    if (t.scrollWidth > t.clientWidth + 1) found.push(`table wider than the column: ${t.rows[0].textContent.trim().replace(/\s+/g, ' | ').slice(0, 60)}`);
  for (const img of document.querySelectorAll('img')) if (!img.complete || img.naturalWidth === 0) found.push(`broken image: ${img.getAttribute('src')}`);
  let last = 0;
  for (const h of document.querySelectorAll('h1, h2, h3, h4, h5, h6')) {
    const level = Number(h.tagName[1]);
    if (last && level > last + 1) found.push(`heading skips a level (h${last} → h${level}): ${h.textContent}`);
    last = level;
  }
  return found;
}

async function look(browser, file, { out, widths, shots, kit }) {
  const name = file.replaceAll('/', '__');
  const html = path.join(out, `${name}.html`);
  writeFileSync(html, page(file, kit));
  const lines = readFileSync(path.join(root, file), 'utf8').split('\n').length;
  const notes = lines > 300 ? [`${lines} lines (a guide keeps under about 300)`] : [];
  for (const [i, width] of widths.entries()) {
    const tab = await browser.newPage({ viewport: { width, height: 900 } });
    await tab.goto(`file://${html}`);
    for (const f of await tab.evaluate(findings)) if (i === 0 || !/^(code|table)/.test(f)) notes.push(`at ${width} px: ${f}`);
    if (shots) {
      await tab.screenshot({ path: path.join(out, `${name}.${width}.png`), fullPage: true });
      const height = await tab.evaluate(() => document.documentElement.scrollHeight);
      const tile = Math.round(width * 1.4);
      for (let y = 0, n = 1; y < height; y += tile, n++) {
        const clip = { x: 0, y, width, height: Math.min(tile, height - y) };
        await tab.screenshot({ path: path.join(out, `${name}.${width}.${String(n).padStart(2, '0')}.png`), fullPage: true, clip });
      }
    }
    await tab.close();
  }
  return [...new Set(notes)];
}

async function main() {
  const { values, positionals } = options();
  if (values.help) return console.log(HELP);
  const out = path.resolve(values.out ?? path.join(root, 'out', 'docs-look'));
  const widths = (values.widths ?? '1280,390').split(',').map(Number);
  if (widths.some((w) => !Number.isInteger(w) || w < 200 || w > 4000)) {
    console.error('docs-look: --widths takes widths in px from 200 to 4000, e.g. 1280,390');
    process.exit(2);
  }
  mkdirSync(out, { recursive: true });
  // Loaded only for a run (--help stays quick): the renderer, GitHub's stylesheet, the browser.
  const [{ Marked }, { chromium }] = await Promise.all([import('marked'), import('playwright-core')]);
  const kit = { Marked, css: readFileSync(createRequire(import.meta.url).resolve('github-markdown-css/github-markdown-light.css'), 'utf8') };
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
  let trips = 0;
  try {
    for (const file of positionals.length ? positionals : GUIDES()) {
      const notes = await look(browser, file, { out, widths, shots: !values['no-shots'], kit });
      trips += notes.length;
      console.log(notes.length ? `${file}\n${notes.map((n) => `  ${n}`).join('\n')}` : `${file}: nothing to trip on`);
    }
  } finally {
    await browser.close();
  }
  const where = path.relative(process.cwd(), out);
  console.log(`\n${trips} findings; pages and screenshots in ${where.startsWith('..') ? out : where || '.'}`);
}

await main();
