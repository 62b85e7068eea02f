/**
 * The help text of `mcp-tasks call`, apart from the command so that `mcp-tasks help call` shows it
 * without loading SDK v1.
 *
 * @module
 */
import { CONNECTION_FLAGS_HELP } from './requester-flags.js';

/** Help text of `mcp-tasks call`. */
export const CALL_HELP = `Usage: mcp-tasks call (URL | --http URL | --stdio "COMMAND") TOOL [JSON_ARGS] [options]

Calls TOOL on an MCP server, as a task when the server can run it as one (the dialect is
negotiated, see --dialect), follows it and prints its result on stdout. While it runs: on a
terminal one live line on stderr (status, elapsed time, progress as "4/10 — MESSAGE") with
partial results ("partial SEQ: TEXT") and subtasks ("subtask ID: STATUS") printed above it;
without a terminal the same as plain lines on stderr ("progress: 4/10 — MESSAGE" for each
report). Progress comes from notifications/progress (SEP-1686, 2025-11-25) or, on 2026-07-28,
from the status message where the server wrote it. The server's questions are asked on the terminal
(or answered with --answer); sampling gets a canned reply. Ctrl-C cancels the task on the server
after 2 s (a second Ctrl-C within them leaves it running and says how to fetch it later).

When the server sends elicitation/create or sampling/createMessage as a task (SEP-1686 _meta, or
2025-11-25 params.task), call hosts that task itself and prints each status change on stderr as
"client task ID (METHOD): status: …". The answers are the same as without a task.

  URL / --http URL         a Streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp
  JSON_ARGS                the tool's arguments as a JSON object (default {})

${CONNECTION_FLAGS_HELP}
  --detach                 print the task id (stdout) once the server made the task, say on stderr
                           how to fetch it later ('mcp-tasks tasks result ID …', with the
                           --session-id it needs), and exit 0 leaving it running (needs --http)
  --json                   stdout holds only JSON, one object per line: {"type":"task"},
                           {"type":"status"}, {"type":"partial"}, {"type":"subtask"},
                           {"type":"progress"}, then {"type":"result"} or {"type":"error"}
  -q, --quiet              print only the result (and errors)
  --ttl MS                 requested lifetime from creation (2025-11-25 carries it)
  --keep-alive MS          requested retention after the end (SEP-1686 carries it); asking a
                           dialect for what it cannot carry is a usage error (exit 2)
  --answer JSON            answer elicitation with this JSON object instead of asking on the terminal
  --sample-reply TEXT      the canned model's reply to sampling requests (default "(canned reply)")
  -h, --help               show this help

Exit codes: 0 completed; 1 failed (isError), or cancelled by someone else; 2 bad usage; 3 the task
asks for input and none can be given (no terminal, no --answer, stdin ended; the task waits);
4 the server could not be reached or refused the call; 130 cancelled with Ctrl-C.
`;
