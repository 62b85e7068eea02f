/**
 * The question a task waits on, in the inspector page's detail, appended to its script
 * (`page-script.ts`): each pending input request of a task in `input_required` as its detail
 * gives it (`detail.inputs`), the elicitation's message and requested schema, or the sampling
 * request's messages and system prompt, or a note that it is hidden (the inspector does not show
 * results). All of it is the requester's data: written as text only. Function declarations only,
 * as in `page-tree-script.ts`.
 *
 * DOM contract (see `page-script.ts` for the rest): `#inputs-box` (hidden without any) with
 * `ul#inputs > li[data-input-id][data-kind]`, each with `span.kind`, `code.input-id`,
 * `span.method`, then `p.redacted`, or `p.question` (the message) and `ul.schema-fields >
 * li[data-field]` (`code.name`, `span.type`, `span.required`, `span.description`) and
 * `details.raw > pre`, or `p.system-prompt` and `ol.sampling-messages > li[data-role]`, or
 * `details.raw > pre` with the params of another method.
 *
 * @module
 */

/**
 * The part of the script.
 *
 * @example
 * ```ts
 * const script = PAGE_CORE_SCRIPT + PAGE_DETAIL_SCRIPT + PAGE_INPUTS_SCRIPT;
 * ```
 */
export const PAGE_INPUTS_SCRIPT = String.raw`
// ---- the question ----------------------------------------------------------------------------------

const REDACTED_NOTE = 'hidden: start the inspector with --inspect-results to show it';

function rawJson(summary, value) {
  const details = el('details', 'raw');
  details.append(el('summary', '', summary));
  const text = JSON.stringify(value, null, 2) || 'null';
  details.append(el('pre', '', text.length > 20000 ? text.slice(0, 20000) + '\n…' : text));
  return details;
}

// The fields of a requested schema (an object schema with flat properties), readable.
function schemaFields(schema) {
  const list = el('ul', 'schema-fields');
  const properties = schema && typeof schema === 'object' && schema.properties && typeof schema.properties === 'object' ? schema.properties : {};
  const required = new Set(Array.isArray(schema && schema.required) ? schema.required : []);
  for (const [name, field] of Object.entries(properties)) {
    const li = el('li');
    li.dataset.field = name;
    const f = field && typeof field === 'object' ? field : {};
    const type = Array.isArray(f.enum) ? 'one of ' + f.enum.join(', ') : String(f.type || 'any') + (f.format ? ' (' + f.format + ')' : '');
    li.append(el('code', 'name', name), ' ', el('span', 'type', type), ' ', el('span', 'required', required.has(name) ? 'required' : 'optional'));
    const description = f.description || f.title;
    if (description) li.append(' ', el('span', 'description', '— ' + description));
    list.append(li);
  }
  if (list.children.length === 0) list.append(el('li', 'muted', 'no fields'));
  return list;
}

function contentText(content) {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.map((b) => (b && b.type === 'text' && typeof b.text === 'string' ? b.text : JSON.stringify(b))).join(' ');
}

function samplingMessages(messages) {
  const list = el('ol', 'sampling-messages');
  for (const message of messages) {
    const li = el('li');
    const role = message && typeof message.role === 'string' ? message.role : '?';
    li.dataset.role = role;
    li.append(el('span', 'role', role), ' ', el('span', 'text', contentText(message && message.content)));
    list.append(li);
  }
  return list;
}

function renderInputs(inputs, task) {
  const box = $('#inputs-box');
  const list = $('#inputs');
  list.replaceChildren();
  state.inputsSeen = task ? task.pendingInputs.join(',') : '';
  box.hidden = inputs.length === 0;
  for (const input of inputs) {
    const li = el('li');
    li.dataset.inputId = input.inputId;
    li.dataset.kind = input.kind;
    li.append(el('span', 'kind', input.kind), ' ', el('code', 'input-id', input.inputId), ' ', el('span', 'method muted', input.method));
    if (input.redacted) {
      li.append(el('p', 'redacted muted', REDACTED_NOTE));
    } else if (input.kind === 'elicitation') {
      li.append(el('p', 'question', input.message || '(no message)'));
      li.append(schemaFields(input.requestedSchema), rawJson('requested schema (JSON)', input.requestedSchema));
    } else if (input.kind === 'sampling') {
      if (input.systemPrompt) li.append(el('p', 'system-prompt', 'system prompt: ' + input.systemPrompt));
      li.append(samplingMessages(Array.isArray(input.messages) ? input.messages : []));
    } else {
      li.append(rawJson('params (JSON)', input.params));
    }
    list.append(li);
  }
}
`;
