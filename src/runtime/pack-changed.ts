// Whether a served pack's surface.json and policy.json are still what the server loaded: `hcp serve` and `hcp exec`
// load their packs once, and a person who denies a verb, or gates it, while they run must not have the old policy go
// on serving it. A call of a pack changed since is refused until the server is started again. Each call stats the two
// files; a file's text is hashed again only when its stat changed (a signature is trusted once its text matched).

import { statSync } from "node:fs";
import { createHash } from "node:crypto";
import { basename, join } from "node:path";
import type { LoadedPack } from "../pack/types.js";
import { readRegularFile } from "../read-regular.js";
import { PACK_FILE_MAX_BYTES } from "../pack/load.js";
import { RuntimeError } from "./errors.js";

/** Each pack's files, by path, with the stat signature last seen to hold the text the server loaded. */
const verified = new WeakMap<LoadedPack, Map<string, string>>();

/** A file's stat signature (its inode, size and times, to the nanosecond), or "none" where there is no file. */
function signature(path: string): string {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return "none";
  }
}

/** The SHA-256 of a file's text as the loader hashes it; null where there is none (or it cannot be read). */
function digestOf(path: string): string | null {
  try {
    return createHash("sha256").update(readRegularFile(path, PACK_FILE_MAX_BYTES).toString("utf8"), "utf8").digest("hex");
  } catch {
    return null;
  }
}

/** Refuses (pack_changed) a call of a pack whose surface.json or policy.json is no longer the text the server loaded. */
export function refuseChangedPack(pack: LoadedPack): void {
  const loaded = pack.sha256;
  if (loaded === undefined) return;
  let seen = verified.get(pack);
  if (seen === undefined) verified.set(pack, (seen = new Map()));
  for (const [path, digest] of [
    [pack.surfacePath, loaded.surface],
    [join(pack.root, "policy.json"), loaded.policy],
  ] as const) {
    const now = signature(path);
    if (seen.get(path) === now) continue;
    if ((now === "none" ? null : digestOf(path)) !== digest) {
      throw new RuntimeError(
        "pack_changed",
        `pack ${JSON.stringify(pack.surface?.id ?? basename(pack.root))} at ${pack.root} changed since this server loaded it (${basename(path)}): start the server again (your MCP client restarts it) to serve the pack as it is now; nothing was run`,
      );
    }
    seen.set(path, now);
  }
}
