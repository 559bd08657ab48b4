// Setting a V8 flag while the program runs. In the programs' bundles this module is the launcher's setV8Flag
// (src/cli/launch.cjs, through scripts/postbuild.mjs), which reads and makes the bundles' code caches under the flags
// the process started with: V8 rejects a cache stamped with other flags.

import { setFlagsFromString } from "node:v8";

/** Sets V8's `--NAME=VALUE`; `atStart`: its value when the process started (the launcher's caches are read under it). */
export function setV8Flag(name: string, value: number, _atStart: number): void {
  setFlagsFromString(`--${name}=${value}`);
}
