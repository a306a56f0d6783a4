// The container (Dockerfile, compose.yaml). Everywhere: the runtime stage copies only files that
// exist and are not kept out of the build context, it has every file the server reads at run
// time, and `npm ci --omit=dev` installs every package the compiled server, the merchant command
// and the browser bundles import. Where a Docker engine answers: the image builds.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

interface Copy {
  from: string | undefined;
  sources: string[];
  destination: string;
}

/** The Dockerfile's stages, by name, each with its COPY and RUN instructions (continuation lines joined). */
function stages(): Map<string, { copies: Copy[]; runs: string[] }> {
  const lines = read('Dockerfile')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const result = new Map<string, { copies: Copy[]; runs: string[] }>();
  let current: { copies: Copy[]; runs: string[] } | undefined;
  for (const line of lines) {
    const [instruction, ...args] = line.split(/\s+/);
    if (instruction === 'FROM') {
      current = { copies: [], runs: [] };
      result.set(args[args.indexOf('AS') + 1]!, current);
    } else if (instruction === 'COPY' && current) {
      const from = args.find((a) => a.startsWith('--from='))?.slice('--from='.length);
      const paths = args.filter((a) => !a.startsWith('--'));
      current.copies.push({ from, sources: paths.slice(0, -1), destination: paths.at(-1)! });
    } else if (instruction === 'RUN' && current) {
      current.runs.push(args.join(' '));
    }
  }
  return result;
}

const WORKDIR = '/app/';
/** Where a runtime COPY puts its sources, as paths from the project root (`web/`, `generated/checkout.openapi.json`). */
function runtimePaths(): string[] {
  const paths: string[] = [];
  for (const copy of stages().get('runtime')!.copies) {
    for (const source of copy.sources) {
      const from = copy.from ? source.replace(WORKDIR, '') : source;
      const into = copy.destination.endsWith('/') ? path.posix.join(copy.destination, path.posix.basename(from)) : copy.destination;
      paths.push(path.posix.normalize(into.replace(WORKDIR, '')));
    }
  }
  return paths;
}
const inImage = (file: string) => runtimePaths().some((p) => file === p || file.startsWith(`${p}/`));

const ignored = read('.dockerignore')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));

/** Runs esbuild on `entries` as a bundle and returns its inputs (nothing is written). */
async function inputs(entries: string[], options: { platform: 'node' | 'browser'; externalPackages: boolean }): Promise<Metafile> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: entries,
    bundle: true,
    write: false,
    metafile: true,
    outdir: 'out/container-check',
    format: 'esm',
    platform: options.platform,
    packages: options.externalPackages ? 'external' : undefined,
    logLevel: 'silent',
  });
  return result.metafile;
}

const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { dev?: boolean; devOptional?: boolean }> };
const manifest = JSON.parse(read('package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
/** `express` from `express/lib/x.js`, `@scope/name` from `@scope/name/sub`. */
const packageName = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
/** Installed by `npm ci --omit=dev`: the lock does not mark it as reachable only through devDependencies. */
const production = (lockKey: string) => lock.packages[lockKey] !== undefined && !lock.packages[lockKey]!.dev && !lock.packages[lockKey]!.devOptional;

describe('the Dockerfile', () => {
  it('is multi-stage, compiles in its build stage, and runs compiled JavaScript as the node user with production dependencies only', () => {
    const all = stages();
    expect([...all.keys()]).toEqual(['deps', 'build', 'runtime']);
    expect(all.get('deps')!.runs.join('\n')).toMatch(/npm ci --omit=dev/);
    expect(all.get('build')!.runs.join('\n')).toMatch(/npm ci .*npm run build|npm run build/s);
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^EXPOSE 3000$/m);
    expect(dockerfile.replace(/\\\n/g, ' ')).toMatch(/^HEALTHCHECK .*\/healthz/m);
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/server\/main\.js"\]$/m);
    // Its node_modules come from the production-only install, never from the build stage's.
    expect(all.get('runtime')!.copies.find((c) => c.destination === 'node_modules')?.from).toBe('deps');
  });

  it('copies only files that exist and that .dockerignore lets into the build context', () => {
    for (const [name, stage] of stages()) {
      for (const copy of stage.copies.filter((c) => !c.from)) {
        for (const source of copy.sources) {
          expect(existsSync(path.join(root, source)), `${name}: COPY ${source}`).toBe(true);
          const excluded = ignored.find((pattern) => source === pattern || source.startsWith(`${pattern}/`));
          expect(excluded, `${name}: COPY ${source} is excluded by .dockerignore (${excluded})`).toBeUndefined();
        }
      }
    }
    // What the runtime stage takes from the build stage is what `npm run build` and the merchant command's compile write.
    expect(
      stages()
        .get('runtime')!
        .copies.filter((c) => c.from === 'build')
        .flatMap((c) => c.sources),
    ).toEqual(['/app/dist']);
    expect(read('scripts/build.mjs')).toContain("path.join(out, 'server')");
    expect(stages().get('build')!.runs.join('\n')).toContain('scripts/merchant.ts --outdir=dist/scripts');
  });

  it('copies into the build stage every script `npm run build` imports', () => {
    const copied = stages()
      .get('build')!
      .copies.filter((c) => !c.from)
      .flatMap((c) => c.sources);
    const imported = [...read('scripts/build.mjs').matchAll(/from '\.\/([^']+)'/g)].map((m) => `scripts/${m[1]}`);
    expect(imported).toContain('scripts/build-state.mjs');
    for (const file of ['scripts/build.mjs', ...imported]) expect(copied, `COPY ${file}`).toContain(file);
  });

  it('has every file the server reads from the project root', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
        const file = path.posix.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (file.endsWith('.ts')) files.push(...[...read(file).matchAll(/projectFile\('([^']+)'\)/g)].map((m) => m[1]!.replace(/\/$/, '')));
      }
    };
    walk('server');
    expect(files).toContain('generated/checkout.openapi.json');
    expect(files).toContain('web');
    for (const file of files) expect(inImage(file), `${file} is read at run time but not copied into the runtime stage`).toBe(true);
  });

  it('has the sources of the browser scripts the server bundles on request, and their packages are production dependencies', async () => {
    const meta = await inputs(['web/checkout.ts', 'web/till.ts'], { platform: 'browser', externalPackages: false });
    const sources = Object.keys(meta.inputs).filter((f) => !f.includes('node_modules/'));
    expect(sources).toContain('web/checkout.ts');
    for (const file of sources) expect(inImage(file), `${file} is bundled at run time but not copied into the runtime stage`).toBe(true);
    const packages = Object.keys(meta.inputs)
      .filter((f) => f.includes('node_modules/'))
      .map((f) => f.slice(f.lastIndexOf('node_modules/')))
      .map((f) => `node_modules/${packageName(f.slice('node_modules/'.length))}`);
    expect(packages.length).toBeGreaterThan(0);
    for (const key of new Set(packages))
      expect(production(key), `${key} is bundled for the browser at run time but is not installed by npm ci --omit=dev`).toBe(true);
  });

  it("npm ci --omit=dev installs every package the compiled server and the merchant command import (esbuild, the server's own compiler, among them)", async () => {
    const meta = await inputs(['server/main.ts', 'scripts/merchant.ts', 'server/pages/kit/assets.ts'], { platform: 'node', externalPackages: true });
    const imported = new Set<string>();
    for (const input of Object.values(meta.inputs)) {
      for (const i of input.imports) if (i.external && !i.path.startsWith('node:')) imported.add(packageName(i.path));
    }
    expect(imported).toContain('express');
    expect(imported).toContain('esbuild');
    for (const name of imported) {
      expect(
        manifest.dependencies[name],
        `${name} is imported at run time but is not in package.json "dependencies"${manifest.devDependencies[name] ? ' (it is a devDependency)' : ''}`,
      ).toBeDefined();
      expect(production(`node_modules/${name}`), `${name} is not installed by npm ci --omit=dev according to package-lock.json`).toBe(true);
    }
  });
});

describe('compose.yaml', () => {
  it('runs Till on PostgreSQL, after PostgreSQL answers its health check', () => {
    const compose = read('compose.yaml');
    expect(compose).toMatch(/image: postgres:/);
    expect(compose).toMatch(/healthcheck:\s+test: \["CMD-SHELL", "pg_isready/);
    expect(compose).toMatch(/condition: service_healthy/);
    expect(compose).toMatch(/DATABASE_URL: postgres:\/\/till:till@postgres:5432\/till/);
    expect(compose).toMatch(/TILL_PUBLIC_URL:/);
  });
});

/** Why `docker build` cannot run here, or undefined when a Docker engine answers. */
function dockerUnavailable(): string | undefined {
  try {
    execFileSync('docker', ['info', '--format', '{{.ServerVersion}}'], { stdio: 'pipe', timeout: 20_000 });
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'docker is not on PATH' : 'docker is on PATH but no Docker engine answers';
  }
}
const noDocker = dockerUnavailable();

describe('the image', () => {
  it.skipIf(noDocker !== undefined)(
    `builds with docker build${noDocker ? ` (skipped: ${noDocker})` : ''}`,
    async () => {
      const tag = `till-test:${process.pid}`;
      try {
        await promisify(execFile)('docker', ['build', '--tag', tag, '.'], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
        const { stdout } = await promisify(execFile)('docker', ['image', 'inspect', '--format', '{{.Config.User}} {{json .Config.ExposedPorts}}', tag]);
        expect(stdout).toContain('node {"3000/tcp":{}}');
      } finally {
        await promisify(execFile)('docker', ['image', 'rm', '--force', tag]).catch(() => {});
      }
    },
    900_000,
  );
});
