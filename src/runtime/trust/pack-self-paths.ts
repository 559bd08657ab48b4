// A file of a pack that names the pack folder itself by an absolute path (`["sh", "/home/you/pack/run.sh"]` in an argv
// template, `#!/home/you/pack/tool`, `. /home/you/pack/lib.sh` in a script, a policy.json value) reaches the folder,
// which the agent can still write after hcp's last check, not hcp's verified copy of it (pack-copy.ts): such a pack
// cannot be trusted, as a link leading back into the folder cannot (pack-links.ts). The digest finds these as it reads
// each file (pack-tree.ts), by the folder's names: its real path, each path a person named it by (through a link), and
// for each under the home folder `~/…`, `$HOME/…`, `${HOME}/…` and the path through the home folder's other name (it
// or its real path, when it is a link). A name is matched as a whole path (the folder then `/`, or the folder at a word
// end: never `/home/you/packages` nor `/home/you/pack2`), slashes doubled or `/./` between its parts too, a quote
// closing before a slash (`"$HOME"/pack`). A path built at run time (from pieces, through `..` or a link elsewhere) is not found: SECURITY.md.

import { knownHomeFolder } from "../../home-folder.js";
import { isAbsolute, join, relative } from "node:path";
import { realOrSelf } from "./pack-links.js";
import { within } from "../../within.js";

/** Bytes that continue a file name: after the folder's name, one of these makes it another name (`pack2`, `packages`). */
const NAME_BYTE = "A-Za-z0-9._+~@%,=\\x80-\\xff-";
/** One path separator as the kernel reads it: `/`, `//`, `/./`; after a closing quote too (`"$HOME"/pack`, `'/home/you'/pack`). */
const SEP = "[\"']*/(?:\\.?/)*";
/** Bytes of a file kept from one read to the next, so that a name split between two reads is found (Linux's PATH_MAX, twice). */
const CARRY = 8192;

/** The scan of one file, fed its bytes in order: the offset in the file of the first name of the folder, else undefined. */
export interface FileScan {
  feed(chunk: Buffer, last: boolean): number | undefined;
}

/** Which names of the folder the files of a pack are searched for; `file()` starts a file. */
export interface SelfPaths {
  /** The names searched for, as a person reads them (for the refusal). */
  readonly names: readonly string[];
  file(): FileScan;
  /**
   * The JSON path (`verbs["go"].cli[1]`) of the first string (or key) of the JSON document `text` naming the folder, as
   * hcp reads it: `\/` and `\u002f` escapes decoded, which the text search does not see. Undefined: none (or not JSON).
   */
  json(text: string): string | undefined;
}

/** A string's UTF-8 bytes, one character each (files are searched as latin1 text: byte for byte). */
const bytes = (s: string) => Buffer.from(s, "utf8").toString("latin1");
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** The parts of a path between its slashes (`//` and `/./` name none). */
const partsOf = (path: string) => path.split("/").filter((p) => p !== "" && p !== ".");
/** The parts of a path, as a pattern matching them with any separators the kernel reads alike. */
const partsPattern = (path: string) => partsOf(path).map((p) => escape(bytes(p)));

/** The path of the first string or key in `value` (at `at`) for which `named` holds. */
function jsonPathNaming(value: unknown, at: string, named: (s: string) => boolean): string | undefined {
  if (typeof value === "string") return named(value) ? at || "(the document)" : undefined;
  if (value === null || typeof value !== "object") return undefined;
  for (const [key, v] of Object.entries(value)) {
    const path = Array.isArray(value) ? `${at}[${key}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${at}${at === "" ? "" : "."}${key}` : `${at}[${JSON.stringify(key)}]`;
    if (!Array.isArray(value) && named(key)) return path;
    const found = jsonPathNaming(v, path, named);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The search for the names of the pack folder `root` (a real path) in its files; `named`, other absolute paths a person
 * gave for it (a link to it). A name with no part (the root folder `/`) is not searched for: everything would name it.
 */
export function selfPaths(root: string, named: readonly string[] = []): SelfPaths {
  const names = [...new Set([root, ...named])].filter((n) => isAbsolute(n) && partsPattern(n).length > 0);
  const alternatives: string[] = [];
  // Literal text every match holds (`/` and the folder's last part, or the home folder's word): files without any are
  // skipped, the most of them at the speed of a search for bytes that seldom occur.
  const literals = new Set<string>();
  const home = knownHomeFolder();
  const homes = home === undefined ? [] : [...new Set([home, realOrSelf(home)])].filter((h) => isAbsolute(h) && h !== "/");
  for (const name of names) {
    const parts = partsPattern(name);
    alternatives.push(SEP + parts.join(SEP));
    literals.add(bytes(`/${partsOf(name).at(-1)!}`));
    for (const h of homes) {
      if (!within(name, h)) continue;
      const rest = partsPattern(relative(h, name));
      alternatives.push(`(?:~|\\$HOME|\\$\\{HOME\\})${rest.map((p) => SEP + p).join("")}`);
      if (rest.length === 0) for (const word of ["~", "HOME"]) literals.add(word);
      // The home folder's other name (a link, as /home is to /var/home on some systems), written in full.
      for (const other of homes.filter((o) => o !== h)) {
        const full = join(other, relative(h, name));
        alternatives.push(SEP + partsPattern(full).join(SEP));
        literals.add(bytes(`/${partsOf(full).at(-1)!}`));
      }
    }
  }
  // A file system that ignores case (macOS's, by default) reads `/Users/You/Pack` as the same folder.
  const pattern = new RegExp(`(?:${alternatives.join("|")})(?![${NAME_BYTE}])`, process.platform === "darwin" ? "gi" : "g");
  // (There, any text is searched: the literals are of one case.)
  const find = process.platform === "darwin" ? [] : [...literals].map((l) => Buffer.from(l, "latin1"));
  const longest = Math.max(0, ...find.map((l) => l.length));
  const naming = (v: string) => {
    pattern.lastIndex = 0;
    return pattern.test(bytes(v));
  };
  return {
    names,
    json(text) {
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch {
        return undefined; // it does not load, so it cannot be trusted anyway
      }
      return jsonPathNaming(doc, "", naming);
    },
    file(): FileScan {
      // The last bytes read, up to CARRY: copied (the chunk read into is reused) into one buffer for the whole file, so
      // that a file of many chunks allocates nothing per chunk.
      const carry = Buffer.allocUnsafeSlow(CARRY);
      let held = 0; // bytes of `carry` in use
      let before = 0; // bytes of the file before them
      return {
        feed(chunk, last) {
          const kept = carry.subarray(0, held);
          // Each match ends with a literal: whole in the chunk, or across (or at the end of) the bytes kept from the last read.
          const seam = Buffer.concat([kept.subarray(-longest), chunk.subarray(0, longest)]);
          if (find.length === 0 || find.some((l) => chunk.includes(l) || seam.includes(l))) {
            const text = kept.toString("latin1") + chunk.toString("latin1");
            pattern.lastIndex = 0;
            for (let m; (m = pattern.exec(text)) !== null; ) {
              // A match at the end of what was read so far may go on in the next read (`pack` then `ages`): found again then.
              if (last || m.index + m[0].length < text.length) return before + m.index;
            }
          }
          // Keep the last CARRY bytes of what was kept and the chunk.
          const old = Math.max(0, Math.min(held, CARRY - chunk.length));
          carry.copyWithin(0, held - old, held);
          const fresh = chunk.subarray(-Math.min(chunk.length, CARRY));
          fresh.copy(carry, old);
          before += held + chunk.length - (old + fresh.length);
          held = old + fresh.length;
          return undefined;
        },
      };
    },
  };
}
