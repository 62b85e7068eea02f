/**
 * What a requester asks for when it registers a webhook (`CreateTaskOptions.push`), and the
 * checks it passes before anything is kept: the operator allows the URL, the secret is usable.
 *
 * @module
 */
import { InvalidArgumentError } from '../errors.js';
import type { PushAllowList } from './push-allow.js';
import { PushEventFilter, type PushTarget } from './push.types.js';
import { redactedUrl } from '../secrets.js';

/**
 * The longest webhook URL kept: a registration is kept on every node (and, on NATS, travels in
 * every delivery job), so its size is bounded by far less than a request body.
 */
export const MAX_PUSH_URL_LENGTH = 4096;

/**
 * A webhook registration, as a requester gives it.
 *
 * @example
 * ```ts
 * const push: PushRequest = { url: 'https://hooks.example.com/tasks', secret: 'a-long-random-secret', events: 'terminal' };
 * ```
 */
export interface PushRequest {
  /** At most {@link MAX_PUSH_URL_LENGTH} characters. */
  readonly url: string;
  /** HMAC-SHA256 key of the signature, 16 to 512 characters. */
  readonly secret: string;
  /** @default 'terminal' (input_required and every end) */
  readonly events?: PushEventFilter;
  /** `task`: this task; `requester`: this task and every later one of the requester. @default 'task' */
  readonly scope?: 'task' | 'requester';
}

/**
 * Checks a registration against the operator's allow-list and returns the target to keep.
 *
 * @param allow - the operator's allow-list, or `null` when this runtime sends no push notifications
 * @throws InvalidArgumentError saying what is wrong (nothing is kept)
 * @example
 * ```ts
 * const target = checkPushRequest(o.push, opts.push?.allow ?? null);
 * ```
 */
export function checkPushRequest(request: PushRequest, allow: PushAllowList | null): { readonly target: PushTarget; readonly scope: 'task' | 'requester' } {
  const fail = (why: string): never => {
    throw new InvalidArgumentError(`Invalid push registration: ${why}`);
  };
  if (typeof request !== 'object' || request === null) fail('expected an object { url, secret, events?, scope? }');
  const { url, secret, events = PushEventFilter.terminal, scope = 'task' } = request;
  if (typeof url !== 'string' || url === '') fail('url must be a non-empty string');
  if (url.length > MAX_PUSH_URL_LENGTH) fail(`url must be at most ${MAX_PUSH_URL_LENGTH} characters`);
  if (typeof secret !== 'string' || secret.length < 16 || secret.length > 512) fail('secret must be a string of 16 to 512 characters');
  if (events !== PushEventFilter.terminal && events !== PushEventFilter.all) fail("events must be 'terminal' or 'all'");
  if (scope !== 'task' && scope !== 'requester') fail("scope must be 'task' or 'requester'");
  if (allow === null) fail('this server sends no push notifications (its operator allowed no URL)');
  // Nothing but what the operator listed is ever called: no server-side request forgery.
  if (!allow!.allows(url)) fail(`url ${JSON.stringify(redactedUrl(url).slice(0, 200))} is not one this server's operator allows`);
  return { target: { url, secret, events }, scope };
}
