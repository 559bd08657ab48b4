// Prose an agent reads about a pack (MCP tool descriptions, HARNESS.md): a free-text description as one sentence.

/** Trimmed, runs of whitespace as one space, the first letter capitalised, ending with `.`, `!` or `?` ("" stays ""). */
export function sentence(text: string): string {
  const t = text.trim().replace(/\s+/g, " ");
  if (t === "") return "";
  const capital = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** At most `max` UTF-16 units of `text`, never ending in half of a character outside the BMP. */
export function cutWhole(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max).replace(/[\ud800-\udbff]$/, "");
}
