// What JSON.parse's refusal may say of a text: why, never a piece of the text.

/**
 * Why JSON.parse refused a text, without the piece of the text V8 quotes (it may cut a secret the
 * text holds in two, where masking cannot see it; or be a file the caller linked to, whose text it could not read):
 * "unexpected character", "Unexpected end of JSON input"…
 */
export function jsonSyntax(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return /^Unexpected token .*is not valid JSON$/s.test(message) ? "unexpected character" : message.split("\n")[0]!;
}
