// A statement's rows as one JSON parameter (read back by `json_to_recordset`), for batches: one
// text whatever the batch's size, so one prepared statement, and one `JSON.stringify` instead of a
// parameter a value.

/** A `\uD800`–`\uDFFF` escape in JSON text, where the backslash before it is not itself escaped. */
const LONE_SURROGATE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;

/**
 * `value` as JSON text that PostgreSQL accepts. A string may hold half of a surrogate pair (a
 * text cut in the middle of an emoji, say); JSON.stringify writes it as an escape, which
 * PostgreSQL's JSON refuses, failing the whole batch, where a parameter of its own would have been
 * sent as U+FFFD. It is written as U+FFFD here too. (JSON.stringify writes a pair whole, as the
 * character itself, and only a lone half as a lowercase escape.)
 */
export function jsonParam(value: unknown): string {
  const text = JSON.stringify(value);
  return text.includes('\\ud') ? text.replace(LONE_SURROGATE, '$1\\ufffd') : text;
}
