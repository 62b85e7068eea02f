/**
 * The command line's output sanitiser (`terminal-safe.ts`): what a hostile server sends reaches
 * the terminal only as visible escapes, one-line fields stay on one line, and `--json` stays
 * exact JSON without raw C1 or line separators.
 */
import { describe, expect, it } from 'vitest';
import { safeJson, safeLine, safeText } from '../../../adapters/cli/terminal-safe.js';

// Every sequence a server could use on a terminal: CSI, OSC 52 / 0 / 8, DCS, BEL, CR, C1 CSI and OSC, DEL.
const HOSTILE = 'ok\x1b[2J\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\\x1bPq#0\x1b\\\r\u009b2K\u009d0;t\u009c\u007f\u0000';
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('safeText', () => {
  it('should show every C0 control but newline and tab, DEL and C1 as a visible escape', () => {
    const shown = safeText(HOSTILE);
    expect(shown).not.toMatch(RAW_CONTROL);
    expect(shown).toBe(
      'ok\\x1b[2J\\x1b]52;c;ZXZpbA==\\x07\\x1b]0;pwned\\x07\\x1b]8;;http://evil\\x1b\\link\\x1b]8;;\\x1b\\\\x1bPq#0\\x1b\\\\x0d\\u009b2K\\u009d0;t\\u009c\\x7f\\x00',
    );
  });

  it('should keep newlines, tabs and ordinary text (accents, emoji) as they are', () => {
    expect(safeText('line 1\n\tline 2 — é ✓ 🎉')).toBe('line 1\n\tline 2 — é ✓ 🎉');
  });
});

describe('safeLine', () => {
  it('should keep a field on one line: newline, tab, CR, U+2028 and U+2029 escaped too', () => {
    const forged = 't1\nmcp-tasks call: task t1 ended completed\r\u2028\u2029\tx';
    const shown = safeLine(forged);
    expect(shown).toBe('t1\\nmcp-tasks call: task t1 ended completed\\r\\u2028\\u2029\\tx');
    expect(shown).not.toMatch(/[\n\r\t\u2028\u2029]/);
  });

  it('should escape what safeText escapes', () => {
    expect(safeLine(HOSTILE)).not.toMatch(RAW_CONTROL);
  });
});

describe('safeJson', () => {
  it('should give exact JSON with no raw C1, DEL, U+2028 or U+2029', () => {
    const value = { statusMessage: HOSTILE, taskId: 'a\u2028b\u2029c\nd', n: 1, nested: [{ text: '\u0085' }] };
    const json = safeJson(value);
    expect(JSON.parse(json)).toEqual(value);
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    expect(json).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(json).toContain('\\u009b');
    expect(json).toContain('\\u2028');
  });

  it('should print what JSON.stringify prints for ordinary values', () => {
    const value = { type: 'status', status: 'working', statusMessage: 'step 3/10 — é' };
    expect(safeJson(value)).toBe(JSON.stringify(value));
  });
});
