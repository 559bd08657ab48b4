// How an error names a pack's verbs: every one when the pack has few; else the few closest to what was typed and
// how many there are, so that a mistyped verb of a pack of 1,223 (GitHub's API) is one line, not 50 KB. The closest
// names are found alike for a mistyped argument (arg-errors.ts).

import { shellWord } from "../shell-word.js";

/** Up to this many verbs, an error names them all. */
const ALL_NAMED_MAX = 30;
const CLOSEST_MAX = 5;
/** A name typed longer than this is compared with none (the comparison costs its length times each name's). */
const TYPED_COMPARED_MAX = 200;

/** `verbs: a, b` for a pack of few verbs; else `closest: x, y; 1223 verbs in all` (and `; hcp describe <root> lists them`). */
export function verbsHint(verbs: readonly string[], typed?: string, root?: string): string {
  if (verbs.length <= ALL_NAMED_MAX) return `verbs: ${verbs.join(", ") || "none"}`;
  const closest = typed === undefined ? [] : closestNames(verbs, typed);
  return [
    ...(closest.length > 0 ? [`closest: ${closest.join(", ")}`] : []),
    `${verbs.length} verbs in all`,
    ...(root !== undefined ? [`hcp describe ${shellWord(root)} lists them`] : []),
  ].join("; ");
}

/** The names (of verbs, of arguments, of tools) nearest to `typed`, nearest first: the same words with other separators
 * or case, then a few edits away, then those containing it (or contained in it). The edits allowed are counted on what
 * follows the start both share, so that a long shared start (a pack's name in its tools' names) lets no unlike verb
 * pass for close: `hcp-probe_writ` is not near `hcp-probe_fail`, nor `docker_container_rm` near `docker_container_ls`. */
export function closestNames(names: readonly string[], typed: string): string[] {
  if (typed.length > TYPED_COMPARED_MAX) return [];
  const word = normalised(typed);
  // Every name within its edits ranks before every name that only contains what was typed.
  const containing = Math.max(2, Math.floor(word.length / 4)) + 1;
  const scored: { name: string; score: number }[] = [];
  for (const name of names) {
    const other = normalised(name);
    const shared = sharedStart(word, other);
    const [typedRest, otherRest] = [word.slice(shared), other.slice(shared)];
    const limit = Math.max(2, Math.floor(typedRest.length / 4));
    const distance = editDistance(typedRest, otherRest, limit);
    if (distance <= limit && !replacedWhole(typedRest, otherRest, distance)) scored.push({ name, score: distance });
    else if (word.length >= 3 && (other.includes(word) || word.includes(other))) scored.push({ name, score: containing + Math.abs(other.length - word.length) });
  }
  // A stable sort keeps the pack's order among equals.
  return scored.sort((a, b) => a.score - b.score).slice(0, CLOSEST_MAX).map((s) => s.name);
}

/**
 * Whether the edits replace every character of both rests (`rm` for `ls` after `docker_container_`): another word, not a
 * slip of the keys; one character (`v3` for `v4`) or a rest only added or cut (`creat` for `create`) still is one.
 */
function replacedWhole(a: string, b: string, distance: number): boolean {
  return a !== "" && b !== "" && distance >= 2 && distance >= Math.max(a.length, b.length);
}

/** How many characters two texts share at their start. */
function sharedStart(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** Case and the separators people mix up (`.`, `-`, `_`, space) do not count as differences. */
function normalised(name: string): string {
  return name.toLowerCase().replace(/[._\s-]+/g, "-");
}

/** Optimal string alignment distance (an adjacent swap is one edit); any value above `limit` means "too far". */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = Array.from({ length: b.length + 1 }, () => 0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      current.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}
