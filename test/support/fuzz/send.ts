// Sends one fuzz case byte for byte (node:http, not fetch: a raw request target, a body of any
// bytes, any content type) and reads the answer.
import http from 'node:http';
import type { FuzzCase } from './cases.js';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

export function send(baseUrl: string, c: FuzzCase): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...c.headers };
    if (c.body !== undefined && headers['content-length'] === undefined) headers['content-length'] = c.body.length;
    const req = http.request({ host: url.hostname, port: url.port, method: c.method, path: c.path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      const answer = () => {
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) out.set(name, Array.isArray(value) ? value.join(', ') : value);
        resolve({ status: res.statusCode ?? 0, headers: out, text: Buffer.concat(chunks).toString('utf8') });
      };
      // An event stream never ends by itself: its first message is the answer, then it is closed.
      const streaming = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (streaming && Buffer.concat(chunks).includes('\n\n')) {
          answer();
          res.destroy();
        }
      });
      res.on('end', answer);
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(120_000, () => req.destroy(new Error('timed out after 120 s')));
    if (c.body !== undefined) req.write(c.body);
    req.end();
  });
}

export const closeConnections = () => agent.destroy();
