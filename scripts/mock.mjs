#!/usr/bin/env node
// Serves both Till interfaces from their bundled contracts with the Prism mock.
//
//   npm run mock
//     Checkout & Billing  http://127.0.0.1:4010   (TILL_MOCK_CHECKOUT_PORT)
//     Commerce            http://127.0.0.1:4011   (TILL_MOCK_COMMERCE_PORT)
//
// Requests are validated against the contract (`--errors`): a request that breaks it gets an
// error answer naming the violation, and a response that would break it is an error too, which
// keeps the examples honest. Answers are the documented examples; send `Prefer: example=<name>`
// to pick another named example, or `Prefer: code=404` for an error response.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const prismBin = path.join(root, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');

/** Asks the OS for a free loopback port. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts Prism for one interface and resolves once it answers HTTP.
 * @param {{ api: 'checkout' | 'commerce', port?: number, quiet?: boolean, timeoutMs?: number }} options
 * @returns {Promise<{ api: string, url: string, port: number, stop: () => Promise<void> }>}
 */
export async function startPrism({ api, port, quiet = true, timeoutMs = 60_000 }) {
  const listenPort = port ?? (await freePort());
  const document = path.join(root, 'generated', `${api}.openapi.json`);
  const child = spawn(
    process.execPath,
    [prismBin, 'mock', document, '--host', '127.0.0.1', '--port', String(listenPort), '--errors', '-v', quiet ? 'error' : 'info'],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const collect = (chunk) => {
    output = (output + chunk.toString()).slice(-8000);
    if (!quiet) process.stdout.write(`[mock:${api}] ${chunk}`);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise((resolve) => child.once('exit', resolve));

  const url = `http://127.0.0.1:${listenPort}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Prism (${api}) exited with ${child.exitCode}:\n${output}`);
    try {
      await fetch(`${url}/__till_mock_ready`, { signal: AbortSignal.timeout(1000) });
      break; // any HTTP answer (a 404 here) means it is listening
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`Prism (${api}) did not start within ${timeoutMs} ms:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    api,
    url,
    port: listenPort,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

async function main() {
  const ports = {
    checkout: Number(process.env.TILL_MOCK_CHECKOUT_PORT ?? 4010),
    commerce: Number(process.env.TILL_MOCK_COMMERCE_PORT ?? 4011),
  };
  console.log('Starting the Prism mock of both interfaces...');
  const mocks = await Promise.all(Object.entries(ports).map(([api, port]) => startPrism({ api, port, quiet: false })));
  for (const mock of mocks) {
    const label = mock.api === 'checkout' ? 'Checkout & Billing' : 'Commerce          ';
    console.log(`  ${label}  ${mock.url}`);
  }
  console.log('Try:');
  console.log(`  curl -H "Authorization: Bearer sk_test_example" ${mocks[0].url}/v1/checkout-sessions/cs_test_a1B2c3D4e5F6g7H8`);
  console.log(`  curl -H "x-api-key: sk_test_example" ${mocks[1].url}/v1/invoice`);
  console.log('Press Ctrl+C to stop.');
  const stop = async () => {
    await Promise.all(mocks.map((m) => m.stop()));
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
