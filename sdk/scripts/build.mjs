#!/usr/bin/env node
// Builds the published package into sdk/dist, in about a second: esbuild strips the types of
// each source file and TypeScript's transpileDeclaration writes its .d.ts, file by file, without
// type-checking the whole program (`npm run typecheck` does that for the repository). The
// generated contract types hold declarations only, so they are copied as .d.ts.
//
//   dist/sdk/src/*.js, *.d.ts     the entries: index (browser-safe) and webhooks (Node)
//   dist/generated/*.d.ts         the contract types the declarations import
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';
import ts from 'typescript';

const sdk = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(sdk, '..');
const dist = path.join(sdk, 'dist');
const srcOut = path.join(dist, 'sdk', 'src');
const generatedOut = path.join(dist, 'generated');

rmSync(dist, { recursive: true, force: true });
mkdirSync(srcOut, { recursive: true });
mkdirSync(generatedOut, { recursive: true });

const compilerOptions = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, declaration: true, strict: true, isolatedDeclarations: true };
const problems = [];
for (const file of readdirSync(path.join(sdk, 'src')).filter((f) => f.endsWith('.ts'))) {
  const source = readFileSync(path.join(sdk, 'src', file), 'utf8');
  const base = file.replace(/\.ts$/, '');
  const js = await transform(source, {
    loader: 'ts',
    format: 'esm',
    target: 'es2022',
    sourcefile: `src/${file}`,
    tsconfigRaw: { compilerOptions: { useDefineForClassFields: true, verbatimModuleSyntax: true } },
  });
  writeFileSync(path.join(srcOut, `${base}.js`), js.code);
  const dts = ts.transpileDeclaration(source, { fileName: file, compilerOptions, reportDiagnostics: true });
  for (const d of dts.diagnostics ?? []) problems.push(`src/${file}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  writeFileSync(path.join(srcOut, `${base}.d.ts`), dts.outputText);
}
for (const api of ['checkout', 'commerce']) {
  writeFileSync(path.join(generatedOut, `${api}.d.ts`), readFileSync(path.join(root, 'generated', `${api}.ts`), 'utf8'));
}
if (problems.length > 0) {
  console.error(`Declarations need explicit types (isolatedDeclarations):\n${problems.join('\n')}`);
  process.exit(1);
}
