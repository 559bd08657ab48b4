// Creating directories one level at a time: Node 20's recursive mkdir never returns for some
// paths (a missing directory under /proc, for one), and a command must fail, not hang.

import { mkdir, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";

/** mkdir -p: creates PATH and its missing parents (mode for each new one); existing directories are fine. */
export async function makeDirs(path: string, mode = 0o755): Promise<void> {
  const missing: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    try {
      if ((await stat(dir)).isDirectory()) break;
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: "ENOTDIR" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      missing.push(dir);
      if (dirname(dir) === dir) break;
    }
  }
  for (const dir of missing.toReversed()) {
    try {
      await mkdir(dir, { mode });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
}
