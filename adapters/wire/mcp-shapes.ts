/**
 * The MCP messages a task definition reads and returns, as plain structural types: a tool's result,
 * a prompt's, a resource's, an elicitation and a sampling request and their answers. Both SDK lines
 * have their own (`@modelcontextprotocol/sdk/types.js`, `@modelcontextprotocol/server`); these are
 * wide enough that a value typed with either is one, so definitions compile with only one SDK
 * installed, or none. Each has an index signature: the wire carries more than what is named here.
 *
 * @module
 */

/** A text content block. */
export interface TextContent {
  readonly type: 'text';
  readonly text: string;
  readonly [key: string]: unknown;
}

/** An image or audio content block (base64 `data`). */
export interface MediaContent {
  readonly type: 'image' | 'audio';
  readonly data: string;
  readonly mimeType: string;
  readonly [key: string]: unknown;
}

/** A link to a resource. */
export interface ResourceLinkContent {
  readonly type: 'resource_link';
  readonly uri: string;
  readonly name: string;
  readonly [key: string]: unknown;
}

/** A resource embedded in the message. */
export interface EmbeddedResourceContent {
  readonly type: 'resource';
  readonly resource: { readonly uri: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/**
 * One content block, as MCP defines them: narrow on `type`.
 *
 * @example
 * ```ts
 * const text = block.type === 'text' ? block.text : '';
 * ```
 */
export type ContentBlock = TextContent | MediaContent | ResourceLinkContent | EmbeddedResourceContent;

/**
 * A tool's result.
 *
 * @example
 * ```ts
 * const result: CallToolResult = { content: [{ type: 'text', text: 'done' }] };
 * ```
 */
export interface CallToolResult {
  readonly content: ContentBlock[];
  readonly isError?: boolean | undefined;
  readonly structuredContent?: Record<string, unknown> | undefined;
  readonly [key: string]: unknown;
}

/**
 * A prompt's result.
 *
 * @example
 * ```ts
 * const result: GetPromptResult = { messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }] };
 * ```
 */
export interface GetPromptResult {
  readonly description?: string | undefined;
  readonly messages: { readonly role: 'user' | 'assistant'; readonly content: ContentBlock; readonly [key: string]: unknown }[];
  readonly [key: string]: unknown;
}

/**
 * A resource's contents.
 *
 * @example
 * ```ts
 * const result: ReadResourceResult = { contents: [{ uri: 'demo://report', text: 'ok' }] };
 * ```
 */
export interface ReadResourceResult {
  readonly contents: { readonly uri: string; readonly mimeType?: string | undefined; readonly [key: string]: unknown }[];
  readonly [key: string]: unknown;
}

/**
 * What an `elicitation/create` asks the requester.
 *
 * @example
 * ```ts
 * const ask: ElicitRequestParams = { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };
 * ```
 */
export interface ElicitRequestParams {
  readonly message: string;
  readonly requestedSchema?: Record<string, unknown> | undefined;
  readonly [key: string]: unknown;
}

/**
 * The requester's answer to an elicitation.
 *
 * @example
 * ```ts
 * const answer: ElicitResult = { action: 'accept', content: { name: 'Ada' } };
 * ```
 */
export interface ElicitResult {
  readonly action: 'accept' | 'decline' | 'cancel';
  /** The form's fields, as the spec types them (a string, number, boolean or list of strings). */
  readonly content?: Record<string, string | number | boolean | string[]> | undefined;
  readonly [key: string]: unknown;
}

/**
 * What a `sampling/createMessage` asks the requester's model.
 *
 * @example
 * ```ts
 * const ask: CreateMessageRequestParams = { messages: [{ role: 'user', content: { type: 'text', text: 'Summarize…' } }], maxTokens: 200 };
 * ```
 */
export interface CreateMessageRequestParams {
  readonly messages: { readonly role: 'user' | 'assistant'; readonly content: ContentBlock | readonly ContentBlock[]; readonly [key: string]: unknown }[];
  readonly maxTokens: number;
  readonly [key: string]: unknown;
}

/**
 * The requester's model's answer.
 *
 * @example
 * ```ts
 * const reply: CreateMessageResult = { role: 'assistant', content: { type: 'text', text: 'Short.' }, model: 'm' };
 * ```
 */
export interface CreateMessageResult {
  readonly role: 'user' | 'assistant';
  readonly content: ContentBlock;
  readonly model: string;
  readonly [key: string]: unknown;
}

/**
 * A server's or client's name and version.
 *
 * @example
 * ```ts
 * const info: Implementation = { name: 'reports', version: '1.0.0' };
 * ```
 */
export interface Implementation {
  readonly name: string;
  readonly version: string;
  readonly [key: string]: unknown;
}
