// The long-running servers' young generation stays within its bound where V8 would double it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { setImmediate as tick } from "node:timers/promises";
import { boundYoungGeneration, sizedByOperator, YOUNG_GENERATION_BOUND, youngGenerationBytes } from "../../../src/cli/hcp/young-generation.js";

test("under a load that makes V8 grow the young generation, it grows to its bound of 16 MiB and no further", async () => {
  assert.ok(youngGenerationBytes() < YOUNG_GENERATION_BOUND, "this process starts below the bound");
  boundYoungGeneration();
  // Objects that live a few rounds: enough survive each collection for V8 to double the young generation
  // until its own most, 32 MiB (without the bound this loop ends at 32 MiB).
  const ring: unknown[] = Array.from({ length: 64 });
  let most = 0;
  for (let round = 0; round < 400; round++) {
    ring[round % ring.length] = Array.from({ length: 2000 }, (_, i) => ({ i, round }));
    await tick();
    most = Math.max(most, youngGenerationBytes());
  }
  assert.equal(most, YOUNG_GENERATION_BOUND);
});

test("an operator's own --max-semi-space-size or --semi-space-growth-factor, given to node or in NODE_OPTIONS, is left to rule alone", () => {
  assert.equal(sizedByOperator(["--max-semi-space-size=64"]), true);
  assert.equal(sizedByOperator([], "--require x.cjs --max_semi_space_size=2"), true);
  assert.equal(sizedByOperator(["--semi-space-growth-factor=4"]), true);
  assert.equal(sizedByOperator([], "--semi_space_growth_factor=1"), true);
  assert.equal(sizedByOperator(["--max-old-space-size=512"], "--require x.cjs"), false);
  assert.equal(sizedByOperator([]), false);
});
