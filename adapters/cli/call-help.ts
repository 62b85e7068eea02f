/**
 * The help text of `mcp-tasks call`, apart from the command so that `mcp-tasks help call` shows it
 * without loading SDK v1.
 *
 * @module
 */

/** Help text of `mcp-tasks call`. */
export const CALL_HELP = `Usage: mcp-tasks call (URL | --stdio "COMMAND") TOOL [JSON_ARGS] [options]

Calls TOOL as a task on an MCP server, prints each status change as it happens, answers the
server's questions, and prints the result. Ctrl-C cancels the task on the server (a second
Ctrl-C within 2 s leaves it running). Exit codes: 0 completed, 1 failed (or cancelled by the
server), 2 bad usage, 4 server unreachable or call refused, 130 cancelled with Ctrl-C.
A server that publishes intermediate results or runs subtasks (this project's _meta keys
io.github.mcp-task-actors/partial and /subtasks) gets them printed too, as they come:
"partial SEQ: TEXT" and "subtask ID: STATUS".

When the server sends elicitation/create or sampling/createMessage as a task (SEP-1686 _meta, or
2025-11-25 params.task), call hosts that task itself: it declares the client capability
tasks.requests.{elicitation.create, sampling.createMessage}, answers the server's tasks/get,
tasks/result, tasks/list, tasks/cancel, tasks/delete, and prints each status change on stderr as
"client task ID (METHOD): status: …". The answers are the same as without a task.

  URL                      a Streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp
  --stdio "COMMAND"        start the server as a child process and talk over stdio
  JSON_ARGS                the tool's arguments as a JSON object (default {})

Options:
  --dialect D              sep-1686 (default) or 2025-11-25; with 2025-11-25, a tool the server
                           does not list as running as a task is called without one
  --keep-alive MS          requested retention (keepAlive / ttl)
  --answer JSON            answer elicitation with this JSON object instead of asking on the terminal
  --sample-reply TEXT      the canned model's reply to sampling requests (default "(canned reply)")
  --poll MS                polling interval until the server suggests one, and the interval
                           the tasks call hosts suggest to the server (default 500)
  -h, --help               show this help
`;
