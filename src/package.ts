// This package's own package.json, found from any of its modules, bundled (dist/bin) or not (dist/src).

import { readFileSync } from "node:fs";

export interface OwnPackageJSON {
  name: string;
  version: string;
  devDependencies?: Record<string, string>;
}

function find(): OwnPackageJSON {
  for (let up = "../"; up.length <= 15; up += "../") {
    try {
      const pkg = JSON.parse(readFileSync(new URL(`${up}package.json`, import.meta.url), "utf8")) as OwnPackageJSON;
      if (pkg.name === "rungrad") return pkg;
    } catch {
      // no package.json at this level: keep going up
    }
  }
  return { name: "rungrad", version: "0.0.0" };
}

export const OWN_PACKAGE: OwnPackageJSON = find();
