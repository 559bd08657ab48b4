// This package's own package.json and root folder, found from any of its modules, bundled (dist/bin) or not (dist/src).

import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface OwnPackageJSON {
  name: string;
  version: string;
  devDependencies?: Record<string, string>;
}

function find(): { pkg: OwnPackageJSON; root: string | null } {
  // By path, not URL: the programs read this at every start (a bundle's import.meta.dirname is its __dirname). Node
  // before 20.11 has no import.meta.dirname.
  const here = import.meta.dirname ?? dirname(fileURLToPath(import.meta.url));
  for (let up = "../"; up.length <= 15; up += "../") {
    const file = join(here, up, "package.json");
    // Looked for first: a missing file's error, with its stack, cost more than the look.
    if (!existsSync(file)) continue;
    try {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as OwnPackageJSON;
      if (pkg.name === "rungrad") return { pkg, root: resolve(here, up) };
    } catch {
      // not a package.json we can read: keep going up
    }
  }
  return { pkg: { name: "rungrad", version: "0.0.0" }, root: null };
}

const found = find();
export const OWN_PACKAGE: OwnPackageJSON = found.pkg;
/** The folder holding this package's package.json (real path: Node resolves an `npm link` symlink), or null if none was found. */
export const OWN_ROOT: string | null = found.root;
