// Lists for messages: one too long for a line (its first items, then how many are left out), and lists kept by key.

/** `a, b, c and 9 more`: the first `max` items joined by commas, and the count of the rest when there are any. */
export function firstAndMore(items: readonly string[], max: number): string {
  const shown = items.slice(0, max).join(", ");
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}

/** `1 pack`, `3 packs`: a count and its noun, which takes an s unless there is one. */
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Adds `item` to the list kept under `key`. */
export function addTo<K, V>(groups: Map<K, V[]>, key: K, item: V): void {
  const items = groups.get(key);
  if (items === undefined) groups.set(key, [item]);
  else items.push(item);
}
