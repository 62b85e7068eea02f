/**
 * How the inspector answers: every response with the same security headers (the page is a
 * strict-CSP page that may carry a token in its URL), JSON errors as `{ error }`.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';

// The page loads nothing from elsewhere (the machine may have no internet) and runs only its own
// script; `style-src 'unsafe-inline'` is for the `<style>` inside the inlined SVG diagrams.
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  // The token may be in the URL: never hand it to another site.
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/**
 * Answers `status` with `body` of `type`.
 *
 * @example
 * ```ts
 * send(res, 200, 'text/css; charset=utf-8', PAGE_STYLE);
 * ```
 */
export function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type }).end(body);
}

/**
 * Answers `status` with `value` as JSON.
 *
 * @example
 * ```ts
 * json(res, 404, { error: `No task with key '${key}'` });
 * ```
 */
export function json(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

/**
 * Answers 401 with the `WWW-Authenticate: Bearer` challenge.
 *
 * @example
 * ```ts
 * return unauthorized(res, 'Unauthorized: send Authorization: Bearer <operator token>');
 * ```
 */
export function unauthorized(res: ServerResponse, message: string): void {
  res.setHeader('www-authenticate', 'Bearer');
  json(res, 401, { error: message });
}
