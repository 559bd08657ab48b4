// The launcher of the built programs: the build's code cache is one V8 accepts, and a missing or
// foreign cache changes nothing but speed.

import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { Script } from "node:vm";
import { REPO, run } from "./helpers.js";

const BIN = `${REPO}dist/bin`;
const { compile } = createRequire(import.meta.url)(`${BIN}/launch.cjs`) as { compile: (bundle: string) => Script };

for (const name of ["rungrad", "hcp"]) {
  test(`${name}: V8 accepts the code cache the build made`, () => {
    assert.equal(compile(`${BIN}/${name}.bundle.cjs`).cachedDataRejected, false);
  });

  test(`${name}: without its cache, or with a cache V8 refuses, the program runs the same`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "launch-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    for (const file of [`${name}.cjs`, `${name}.bundle.cjs`, "launch.cjs"]) copyFileSync(`${BIN}/${file}`, join(dir, file));
    const expected = await run(process.execPath, [`${BIN}/${name}.cjs`, "--help"]);
    assert.equal(expected.code, 0);
    const missing = await run(process.execPath, [join(dir, `${name}.cjs`), "--help"]);
    assert.deepEqual(missing, expected);
    writeFileSync(join(dir, `${name}.bundle.cjs.cache`), "not a V8 code cache");
    assert.equal(compile(join(dir, `${name}.bundle.cjs`)).cachedDataRejected, true);
    const foreign = await run(process.execPath, [join(dir, `${name}.cjs`), "--help"]);
    assert.deepEqual(foreign, expected);
  });
}
