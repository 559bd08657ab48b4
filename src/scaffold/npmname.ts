// npm's package-name rules for new packages (validate-npm-package-name's validForNewPackages).

import { builtinModules } from "node:module";

const EXCLUDED = new Set(["node_modules", "favicon.ico"]);
const SCOPED = /^(?:@([^/]+?)[/])?([^/]+?)$/;
const MAX_LENGTH = 214;

/** Whether name may be published as a new npm package (plain or `@scope/name`). */
export function validNpmPackageName(name: string): boolean {
  if (name.length === 0 || name.length > MAX_LENGTH) return false;
  if (name.trim() !== name || name.toLowerCase() !== name) return false;
  if (name.startsWith(".") || name.startsWith("_")) return false;
  if (EXCLUDED.has(name) || builtinModules.includes(name)) return false;
  const match = SCOPED.exec(name);
  if (!match) return false;
  const [, scope, pkg] = match;
  if (/[~'!()*]/.test(pkg!)) return false;
  if (scope !== undefined && encodeURIComponent(scope) !== scope) return false;
  return encodeURIComponent(pkg!) === pkg;
}
