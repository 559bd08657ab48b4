// The generated package.json, tsconfig.json and .gitignore.

import type { ScaffoldSettings } from "../options.js";
import { TOOLCHAIN } from "../toolchain.js";

const json = (v: unknown) => JSON.stringify(v, null, 2) + "\n";

export function packageJSON(s: ScaffoldSettings): string {
  return json({
    name: s.packageName,
    version: "0.1.0",
    description: s.description,
    type: "module",
    bin: { [s.name]: "dist/src/main.js" },
    // The build starts from an empty dist/ (no output of a deleted source survives) and makes the entry point
    // executable, so `./dist/src/main.js` and `rungrad score` can run it; `npm test` always tests a fresh build.
    scripts: {
      build: `node -e "require('node:fs').rmSync('dist', { recursive: true, force: true })" && tsc -p tsconfig.json && node -e "require('node:fs').chmodSync('dist/src/main.js', 0o755)"`,
      test: "npm run build && node --test dist/test/",
    },
    engines: { node: ">=20" },
    dependencies: { rungrad: s.rungradDependency },
    devDependencies: { ...TOOLCHAIN },
  });
}

export function tsconfigJSON(): string {
  return json({
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      lib: ["ES2023"],
      types: ["node"],
      strict: true,
      noUncheckedIndexedAccess: true,
      rootDir: ".",
      outDir: "dist",
      skipLibCheck: true,
    },
    include: ["src", "test"],
  });
}

export function gitignore(): string {
  return "node_modules/\ndist/\n";
}
