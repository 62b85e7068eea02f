/**
 * Reading the inspector from a test: its URL in the CLI's log, its JSON API, and its
 * Server-Sent Events stream read with plain `fetch` (Node 20 has no `EventSource`).
 */

/** One server-sent event; a `: comment` line (the heartbeat) has event `comment`. */
export interface SseFrame {
  readonly event: string;
  readonly data: string;
}

/** An open event stream. */
export interface EventReader {
  readonly status: number;
  /** Every frame received so far. */
  readonly frames: readonly SseFrame[];
  /** The first frame not yet taken (already received, or to come) matching `match`; takes it. */
  next(match: (frame: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame>;
  close(): void;
}

/** The `url` of the CLI's `inspector at …` log line, or `undefined` when not logged yet. */
export function inspectorUrlFrom(stderr: string): string | undefined {
  for (const line of stderr.split('\n')) {
    if (!line.includes('"inspector at ')) continue;
    const parsed = JSON.parse(line) as { url?: unknown };
    if (typeof parsed.url === 'string') return parsed.url;
  }
  return undefined;
}

/** GET `url` and its JSON body. */
export async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** Opens `GET url` as an event stream and parses its frames as they arrive. */
export async function openEvents(url: string, headers: Record<string, string> = {}): Promise<EventReader> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const frames: SseFrame[] = [];
  const taken = new Set<number>();
  const waiters = new Set<() => void>();
  const push = (frame: SseFrame): void => {
    frames.push(frame);
    for (const wake of [...waiters]) wake();
  };
  void (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) push({ event: 'comment', data: line.slice(1).trim() });
            else if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length > 0) push({ event, data: data.join('\n') });
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  return {
    status: res.status,
    frames,
    next: (match, timeoutMs = 5_000) =>
      new Promise<SseFrame>((resolve, reject) => {
        const check = (): boolean => {
          for (let i = 0; i < frames.length; i++) {
            if (!taken.has(i) && match(frames[i]!)) {
              taken.add(i);
              resolve(frames[i]!);
              return true;
            }
          }
          return false;
        };
        if (check()) return;
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(frames.filter((f, i) => !taken.has(i) && f.event !== 'comment')).slice(0, 2_000)}`));
        }, timeoutMs);
        const wake = (): void => {
          if (!check()) return;
          clearTimeout(timer);
          waiters.delete(wake);
        };
        waiters.add(wake);
      }),
    close: () => abort.abort(),
  };
}
