/**
 * The help text of `mcp-tasks tasks`, apart from the command so that `mcp-tasks help tasks` shows
 * it without loading SDK v1.
 *
 * @module
 */
import { CONNECTION_FLAGS_HELP } from './requester-flags.js';

/** Help text of `mcp-tasks tasks`. */
export const TASKS_HELP = `Usage: mcp-tasks tasks (list | get ID | result ID | cancel ID) (--http URL | --stdio "COMMAND") [options]

Reaches tasks made earlier (for example with 'mcp-tasks call --detach'):
  list        the tasks this requester may see (tasks/list): ID, status, status message
  get ID      one read of a task (tasks/get)
  result ID   follows the task to its end like 'call' does (status on stderr, questions answered
              on the terminal or with --answer, Ctrl-C cancels) and prints its result on stdout
  cancel ID   asks the server to cancel the task (tasks/cancel) and prints what it then shows

Over HTTP, an anonymous requester's task belongs to the MCP session that made it: pass the
--session-id that 'call --detach' printed. With --header 'Authorization: Bearer TOKEN', a
2025-11-25 task belongs to the token's principal and is found from any session.

${CONNECTION_FLAGS_HELP}
  --json                   stdout holds only JSON, one object per line
  -q, --quiet              print only the result (result) or nothing but errors
  --answer JSON            (result) answer elicitation with this JSON object
  --sample-reply TEXT      (result) the canned model's reply to sampling requests
  -h, --help               show this help

Exit codes: 0 done (result: completed), 1 the task failed or was cancelled (cancel: it had
already ended), 2 bad usage, 3 the task asks for input and none can be given, 4 the server could
not be reached or refused (no such task, for example), 130 cancelled with Ctrl-C.
`;
