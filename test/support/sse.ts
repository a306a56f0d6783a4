// A small Server-Sent Events client for tests: opens a stream with fetch and hands out its
// messages (id, event, data) as they arrive.

export interface SseMessage {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The error body when the stream was refused. */
  text: string | undefined;
  /** Every message received so far. */
  messages: SseMessage[];
  /** Every comment line received so far (`: heartbeat`). */
  comments: string[];
  /** Waits for a message that `match` accepts (default: the next one not yet waited for). */
  next(match?: (m: SseMessage) => boolean, timeoutMs?: number): Promise<SseMessage>;
  close(): void;
}

export async function openStream(url: string, headers: Record<string, string>): Promise<SseStream> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const stream: SseStream = {
    status: response.status,
    headers: response.headers,
    text: undefined,
    messages: [],
    comments: [],
    next: undefined as never,
    close: () => abort.abort(),
  };
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    stream.text = await response.text();
    return stream;
  }
  let waited = 0;
  const waiters = new Set<() => void>();
  stream.next = (match, timeoutMs = 10_000) =>
    new Promise((resolve, reject) => {
      const find = () => {
        const i = match ? stream.messages.findIndex(match) : waited < stream.messages.length ? waited : -1;
        if (i === -1) return false;
        if (!match) waited = i + 1;
        waiters.delete(find);
        clearTimeout(timer);
        resolve(stream.messages[i]!);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(find);
        reject(new Error(`no matching event within ${timeoutMs} ms; got ${stream.messages.map((m) => m.event).join(', ') || 'none'}`));
      }, timeoutMs);
      if (!find()) waiters.add(find);
    });
  void read(response.body!, stream, () => waiters.forEach((w) => w()));
  return stream;
}

async function read(body: ReadableStream<Uint8Array>, stream: SseStream, arrived: () => void) {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const message: SseMessage = { id: undefined, event: undefined, data: '' };
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) stream.comments.push(line.slice(1).trim());
          else if (line.startsWith('id: ')) message.id = line.slice(4);
          else if (line.startsWith('event: ')) message.event = line.slice(7);
          else if (line.startsWith('data: ')) message.data += line.slice(6);
        }
        if (message.data) {
          stream.messages.push(message);
          arrived();
        }
      }
    }
  } catch {
    // Closed by the test, or by the server.
  }
}
