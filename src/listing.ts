// A list too long for one line of a message: its first items, then how many are left out.

/** `a, b, c and 9 more`: the first `max` items joined by commas, and the count of the rest when there are any. */
export function firstAndMore(items: readonly string[], max: number): string {
  const shown = items.slice(0, max).join(", ");
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}
