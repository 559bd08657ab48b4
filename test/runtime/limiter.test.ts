// Limiter: never more than its bound at once, waiters served in arrival order, a waiter's abort runs nothing.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Limiter } from "../../src/runtime/limiter.js";
import { RuntimeError } from "../../src/runtime/errors.js";

const tick = () => new Promise((r) => setImmediate(r));

test("at most max run at once, in arrival order", async () => {
  const limiter = new Limiter(3);
  let active = 0;
  let peak = 0;
  const order: number[] = [];
  await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      limiter.run(async () => {
        order.push(i);
        peak = Math.max(peak, ++active);
        for (let k = 0; k < (i % 4) + 1; k++) await tick();
        active--;
      }),
    ),
  );
  assert.equal(peak, 3);
  assert.deepEqual(order, [...order].sort((a, b) => a - b));
});

test("aborting a waiter rejects it with cancelled and frees its place; a failed work releases its slot", async () => {
  const limiter = new Limiter(1);
  const release = await limiter.acquire();
  const stop = new AbortController();
  let ran = false;
  const waiting = limiter.run(async () => void (ran = true), stop.signal);
  stop.abort();
  await assert.rejects(waiting, (e: unknown) => e instanceof RuntimeError && e.code === "cancelled");
  release();
  release(); // twice is harmless
  await assert.rejects(limiter.run(() => Promise.reject(new Error("boom"))), /boom/);
  assert.equal(await limiter.run(async () => "free"), "free");
  assert.equal(ran, false);
});
