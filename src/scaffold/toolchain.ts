// This rungrad's version and its TypeScript toolchain, read once from its package.json: the generated project's dependency defaults.

import { OWN_PACKAGE as pkg } from "../package.js";

/** `^<version>` of the running rungrad. */
export const DEFAULT_RUNGRAD_DEPENDENCY = `^${pkg.version}`;

/** The generated project's devDependencies: the TypeScript and Node types rungrad itself builds with. */
export const TOOLCHAIN: Readonly<Record<string, string>> = {
  "@types/node": pkg.devDependencies?.["@types/node"] ?? "^20.0.0",
  typescript: pkg.devDependencies?.["typescript"] ?? "^5.0.0",
};
