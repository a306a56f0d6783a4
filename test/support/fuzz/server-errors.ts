// The server's own account of a 500: its error log lines, by request id, so a failing case in the
// report says what broke inside (the answer itself rightly says nothing).
import { createLogger } from '../../../server/log.js';

export class ServerErrors {
  private readonly byRequest = new Map<string, string>();
  readonly logger = createLogger('error', {
    write: (line: string) => {
      try {
        const entry = JSON.parse(line);
        const requestId = entry.requestId ?? entry.req?.id;
        const stack = String(entry.err?.stack ?? entry.err?.message ?? entry.msg ?? '')
          .split('\n')
          .slice(0, 6)
          .join(' | ');
        if (requestId) this.byRequest.set(requestId, stack);
      } catch {
        /* not a JSON line */
      }
    },
  });

  /** What the server logged for the request id in an answer's body, if anything. */
  about(answerText: string): string | undefined {
    const id = /"requestId":"([^"]+)"/.exec(answerText)?.[1];
    return id ? this.byRequest.get(id) : undefined;
  }
}
