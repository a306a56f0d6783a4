// A scripted node:http server for failure injection: each request is recorded, then answered
// by the script (reset the connection, stall, or answer any status, headers and body).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Script = (req: SeenRequest, res: ServerResponse, attempt: number) => void;

export interface LocalServer {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

export async function startLocalServer(script: Script): Promise<LocalServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      requests.push(seen);
      script(seen, res, requests.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers JSON. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Drops the connection without an answer (the client sees a reset / "fetch failed"). */
export function reset(res: ServerResponse): void {
  res.socket?.destroy();
}
