// Which links of a pack folder lead to the same place from hcp's private copy of it (pack-copy.ts) as from the
// folder: a link resolved within the folder (through its other links, as the kernel would) lands on the same entry
// of the copy. A link that leaves the folder by `..`, or by an absolute path into the folder itself (or through
// links elsewhere back into it), would make the copy reach the folder the agent can still write, or another
// place than the one trusted (so would a link to a folder holding it): such a pack cannot be trusted, and the sentence says which link and why.
// So cannot a policy.json `cwd` that reaches the folder through a link elsewhere.

import { realpathSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { within } from "../../within.js";

/** Links followed in one resolution before it counts as a loop (Linux's own limit). */
const MAX_HOPS = 40;


/** The real path of `path`, or undefined when it does not resolve (nothing is there yet). */
function realOf(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

/** The real path of `path`; the path itself when it does not resolve (nothing there yet, or a link on the way broken). */
export const realOrSelf = (path: string) => realOf(path) ?? path;

/**
 * Why the folder at `root` (a real path), whose entries are `entries` (pack-tree.ts), cannot be run from a copy:
 * the first link that does not resolve the same way there, named; undefined when every link does.
 */
export function linkLeavingCopy(root: string, entries: Readonly<Record<string, string>>): string | undefined {
  const at = (p: string) => (Object.hasOwn(entries, p) ? entries[p] : undefined);
  for (const [path, entry] of Object.entries(entries)) {
    if (!entry.startsWith("l:")) continue;
    const why = resolveIn(path, entry.slice(2), at);
    const named = `the link ${path} (to ${entry.slice(2)})`;
    if (why === "loop") return `${named} is a loop of links`;
    if (why === "climbs") return `${named} leaves the pack folder by "..": hcp runs a trusted pack from its own copy, where that leads elsewhere; give a target outside the folder as an absolute path`;
    if (why !== undefined) {
      // Absolute: the same place from the copy, so it must lead neither into the folder nor to a folder holding it,
      // by its path or through links.
      const real = realOf(why);
      const back = (p: string) => within(p, root) || within(root, p);
      if (back(why) || (real !== undefined && back(real))) {
        return `${named} leads back into the pack folder (or to a folder holding it) by an absolute path: hcp runs a trusted pack from its own copy, and this would reach the folder instead; make it a relative link`;
      }
    }
  }
  return undefined;
}

/**
 * Follows the link at `path` (relative to the folder) to `target` within the folder's entries: undefined when it
 * stays inside, "climbs" when `..` takes it above the folder, "loop" past MAX_HOPS, else the absolute path it leads
 * to (the rest of the path joined to the first absolute target met).
 */
function resolveIn(path: string, target: string, at: (p: string) => string | undefined): string | undefined {
  // The folder walked so far, the components still to walk, and a link's target to walk next.
  const dir = path.split("/").slice(0, -1);
  let todo: string[] = [];
  let next: string | undefined = target;
  for (let hops = 0; ; ) {
    if (next !== undefined) {
      if (isAbsolute(next)) return resolve(next, ...todo);
      todo = [...next.split("/"), ...todo];
      next = undefined;
    }
    const name = todo.shift();
    if (name === undefined) return undefined;
    if (name === "" || name === ".") continue;
    if (name === "..") {
      if (dir.pop() === undefined) return "climbs";
      continue;
    }
    const entry = at([...dir, name].join("/"));
    if (entry?.startsWith("l:")) {
      if (++hops > MAX_HOPS) return "loop";
      // The link's target is walked from the folder it is in, then the rest of the path.
      next = entry.slice(2);
      continue;
    }
    dir.push(name);
  }
}

/**
 * Why policy.json's `cwd` cannot be run from the copy: a path that is not the folder's own but leads into it through a
 * link elsewhere. hcp run would have to look the link up again when the program starts, when it may lead to another
 * place than the one trusted; a working folder outside the folder by its path is outside it, whatever is there.
 */
export function cwdLeavingCopy(root: string, cwd: string | undefined): string | undefined {
  if (cwd === undefined || within(resolve(root, cwd), root)) return undefined;
  const real = realOf(resolve(root, cwd));
  if (real === undefined || !within(real, root)) return undefined;
  return `policy.json cwd ${JSON.stringify(cwd)} leads into the pack folder through a link: hcp runs a trusted pack from its own copy, and this would be looked up again as it starts; give it as a path relative to the pack folder`;
}
