// This rungrad's version, root and TypeScript toolchain, read once from its package.json: the generated project's dependency defaults.

import { OWN_PACKAGE as pkg, OWN_ROOT } from "../package.js";

/** The `rungrad` dependency a generated project gets by default, and where it points. */
export interface RungradDependency {
  spec: string;
  /** `registry`: the running rungrad was installed from a registry; `local`: it runs from a checkout or an `npm link`. */
  source: "registry" | "local";
}

/**
 * A package installed from a registry lives inside a node_modules folder; anything else (a checkout, the target of
 * `npm link`) is not on any registry at this version, so the project depends on the folder itself.
 */
export function rungradDependencyFor(root: string | null, version: string): RungradDependency {
  if (root === null || root.split(/[\\/]/).includes("node_modules")) return { spec: version, source: "registry" };
  return { spec: `file:${root}`, source: "local" };
}

export const DEFAULT_RUNGRAD_DEPENDENCY: RungradDependency = rungradDependencyFor(OWN_ROOT, pkg.version);

/** The generated project's devDependencies: the TypeScript and Node types rungrad itself builds with. */
export const TOOLCHAIN: Readonly<Record<string, string>> = {
  "@types/node": pkg.devDependencies?.["@types/node"] ?? "^20.0.0",
  typescript: pkg.devDependencies?.["typescript"] ?? "^5.0.0",
};
