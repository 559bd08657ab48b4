// This package's own package.json and root folder, found from any of its modules, bundled (dist/bin) or not (dist/src).

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export interface OwnPackageJSON {
  name: string;
  version: string;
  devDependencies?: Record<string, string>;
}

function find(): { pkg: OwnPackageJSON; root: string | null } {
  for (let up = "../"; up.length <= 15; up += "../") {
    const url = new URL(`${up}package.json`, import.meta.url);
    try {
      const pkg = JSON.parse(readFileSync(url, "utf8")) as OwnPackageJSON;
      if (pkg.name === "rungrad") return { pkg, root: fileURLToPath(new URL(".", url)).replace(/[\\/]$/, "") };
    } catch {
      // no package.json at this level: keep going up
    }
  }
  return { pkg: { name: "rungrad", version: "0.0.0" }, root: null };
}

const found = find();
export const OWN_PACKAGE: OwnPackageJSON = found.pkg;
/** The folder holding this package's package.json (real path: Node resolves an `npm link` symlink), or null if none was found. */
export const OWN_ROOT: string | null = found.root;
