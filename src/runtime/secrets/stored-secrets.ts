// Every value the credential file holds, a secret for every call whichever pack it runs (§9: every value is a secret).
// A verb of one pack can print the file itself (kubectl's read `get --filename FILE` quotes an object it cannot
// decode), so the credentials of packs it does not read, or that no server serves, are masked in its output too.

import { statSync } from "node:fs";
import { readRegularFile } from "../../read-regular.js";
import { JsonCursor } from "../../json/literal.js";
import { credentialFilePath } from "./credentials.js";
import { SECRET_FILE_MAX_BYTES } from "./secret-file.js";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The file as last read, known by what its stat says (a long-running server reads it again only once it changed), and
 * every value it has held since this process first read it.
 */
let last: { path: string; stamp: string; values: readonly string[] } | undefined;

/**
 * Every non-empty string under a family's `env` or `openapi` in the credential file (`$HCP_CREDENTIALS`, else
 * `~/.config/hcp/credentials.json`), and every value it has held since this process first read it: a token the
 * person rotated out may still work, and an editor may delete the file before it writes it again. Only masked with,
 * never given to a program, so a file others may read (which no pack's call would use) is read too: its values are no
 * less secret. Never throws: it is read as each answer is masked, outside any call (an error there would end a server
 * with its calls in flight), and a file that cannot be read now (out of file descriptors, being rewritten, deleted)
 * leaves the values it held masked.
 */
export function storedSecrets(env: Env): readonly string[] {
  try {
    const path = credentialFilePath(env);
    // No credential file is the usual answer where none is kept: no error made for it at each call.
    const st = statSync(path, { bigint: true, throwIfNoEntry: false });
    const held = last?.path === path ? last.values : [];
    if (st === undefined) return held;
    const stamp = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
    if (last?.path !== path || last.stamp !== stamp) last = { path, stamp, values: [...new Set([...held, ...valuesIn(path)])] };
    return last.values;
  } catch {
    return last?.values ?? [];
  }
}

const OPEN_BRACE = 0x7b;

/**
 * Every non-empty string under a family's `env` or `openapi` in the file at `path`, a repeated key's every value
 * included (JSON.parse keeps the last: an old token left above its rotation would go unmasked); throws when it cannot
 * be read or is not JSON.
 */
function valuesIn(path: string): string[] {
  const cursor = new JsonCursor(readRegularFile(path, SECRET_FILE_MAX_BYTES).toString("utf8"));
  const values: string[] = [];
  /** Calls `member` with each key of the object at the cursor (at `depth`), whose value it must consume; skips any other value. */
  const eachMember = (depth: number, member: (key: string) => void) => {
    if (cursor.valueStart() !== OPEN_BRACE) return cursor.skipValue(depth - 1);
    cursor.open(depth);
    for (let key = cursor.firstKey(); key !== null; key = cursor.nextKey()) {
      cursor.colon();
      member(key);
    }
  };
  eachMember(1, () =>
    eachMember(2, (part) => {
      if (part !== "env" && part !== "openapi") return cursor.skipValue(2);
      eachMember(3, () => {
        const value = cursor.readValue(3);
        if (typeof value === "string" && value !== "") values.push(value);
      });
    }),
  );
  cursor.finish();
  return values;
}
