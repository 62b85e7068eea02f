/**
 * HTTP over a raw TCP socket, for requests no HTTP client would send: a target sent byte for byte
 * (`GET //@ HTTP/1.1`), a Host of any shape, a body that never finishes.
 */
import { connect, type Socket } from 'node:net';

/** A raw answer: the status code (0 when the connection closed without one) and the whole text. */
export interface RawAnswer {
  readonly status: number;
  readonly text: string;
}

/** Opens a socket to 127.0.0.1:`port`. */
export function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Whether `text` holds a whole answer: its head, and its body by length or chunking (an event stream's head is enough). */
function complete(text: string): boolean {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const head = text.slice(0, end).toLowerCase();
  const body = text.slice(end + 4);
  if (head.includes('content-type: text/event-stream')) return true;
  const length = /content-length: (\d+)/.exec(head);
  if (length) return Buffer.byteLength(body, 'latin1') >= Number(length[1]);
  if (head.includes('transfer-encoding: chunked')) return body.endsWith('0\r\n\r\n');
  return false;
}

/** Reads the server's answer: until it is whole, the server closes the connection, or `timeoutMs` passes. */
export function answerOf(socket: Socket, timeoutMs = 5_000, o: { readonly keepOpen?: boolean } = {}): Promise<RawAnswer> {
  return new Promise((resolve) => {
    let text = '';
    const done = (): void => {
      clearTimeout(timer);
      socket.off('data', onData).off('close', done).off('error', done);
      if (o.keepOpen !== true) socket.destroy();
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ status: status ? Number(status[1]) : 0, text });
    };
    const timer = setTimeout(done, timeoutMs);
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('latin1');
      if (complete(text)) done();
    };
    socket.on('data', onData).once('close', done).once('error', done);
  });
}

/** Sends one request with `Connection: close` and returns its answer. */
export async function rawRequest(port: number, target: string, o: { readonly method?: string; readonly host?: string; readonly body?: string } = {}): Promise<RawAnswer> {
  const socket = await openSocket(port);
  const body = o.body ?? '';
  const head = [
    `${o.method ?? 'GET'} ${target} HTTP/1.1`,
    `Host: ${o.host ?? `127.0.0.1:${port}`}`,
    'Connection: close',
    ...(body === '' ? [] : ['Content-Type: application/json', 'Accept: application/json, text/event-stream', `Content-Length: ${Buffer.byteLength(body)}`]),
  ];
  socket.write(Buffer.from(`${head.join('\r\n')}\r\n\r\n${body}`, 'latin1'));
  return answerOf(socket);
}
