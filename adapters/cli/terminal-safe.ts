/**
 * The one output sanitiser of the command line: everything a server sent (results, status and
 * progress messages, partial results, error texts, ids, questions, `tasks list`/`get`, `status`)
 * passes through it before it reaches the user's terminal. A terminal obeys control bytes in what
 * it prints: ESC starts CSI (move the cursor, clear the screen), OSC (set the title, write the
 * clipboard with OSC 52, make links with OSC 8) and DCS sequences, BEL rings, CR overwrites the
 * line, and C1 bytes (U+0080–U+009F) are single-character CSI/OSC on many terminals. A server
 * could rewrite the screen or paint "completed" over a failure; here each such character is shown
 * as a visible escape instead (`\x1b`, `\u009b`).
 *
 * @module
 */

// C0 controls but newline and tab, DEL, and C1: what a multi-line text may not carry raw.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// A one-line field may not break its line either: newline, tab, and the Unicode line and paragraph separators.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
// What JSON.stringify leaves raw but a terminal (C1) or a JavaScript reader (U+2028/U+2029) takes as more than text.
const UNSAFE_JSON = /[\u007f-\u009f\u2028\u2029]/g;

const LINE_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

function visible(ch: string): string {
  const code = ch.charCodeAt(0);
  return code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * A text from a server made safe to print on a terminal: C0 controls but newline and tab, DEL and
 * C1 become visible escapes; newlines and tabs stay (results and partial results may span lines).
 *
 * @param text - what the server sent
 * @returns the text with every control character but `\n` and `\t` escaped
 * @example
 * ```ts
 * safeText('done\x1b]52;c;ZXZpbA==\x07'); // 'done\\x1b]52;c;ZXZpbA==\\x07'
 * safeText('line 1\nline 2');             // unchanged
 * ```
 */
export function safeText(text: string): string {
  return text.replace(UNSAFE_TEXT, visible);
}

/**
 * A one-line field from a server (an id, a status message, a sentence of stderr) made safe to
 * print: as {@link safeText}, and newline, tab, CR, U+2028 and U+2029 escaped too, so the field
 * cannot forge a line of its own.
 *
 * @param text - what the server sent
 * @returns the text on one line, every control character escaped
 * @example
 * ```ts
 * safeLine('t1\nmcp-tasks call: task t1 ended completed'); // 't1\\nmcp-tasks call: task t1 ended completed'
 * safeLine('step 3/10');                                 // unchanged
 * ```
 */
export function safeLine(text: string): string {
  return text.replace(UNSAFE_LINE, (ch) => LINE_ESCAPES[ch] ?? visible(ch));
}

/**
 * Exact JSON (`JSON.parse` gives back the value) safe to print on a terminal and to paste into
 * JavaScript: `JSON.stringify` already escapes C0 controls; DEL, C1, U+2028 and U+2029, which it
 * leaves raw, become `\u007f`… escapes too. Those characters occur only inside JSON strings, where
 * the escape means the same character.
 *
 * @param value - anything `JSON.stringify` takes
 * @returns one line of JSON with no raw control or line-separator character
 * @example
 * ```ts
 * safeJson({ statusMessage: '\u009b2J' }); // '{"statusMessage":"\\u009b2J"}'
 * ```
 */
export function safeJson(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(UNSAFE_JSON, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
