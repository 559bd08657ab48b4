// Outbox and Intake: answers a client has not taken hold back new work until it takes them; requests are read ahead a
// bounded amount only, and the end of input is still seen.

import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { Intake } from "../../src/transports/intake.js";
import { Outbox } from "../../src/transports/outbox.js";
import { Limiter } from "../../src/runtime/limiter.js";

const tick = () => new Promise((r) => setImmediate(r));

test("Outbox: room waits while the backlog is over the bound and comes once the client reads; a gated slot waits too; aborting a wait is `cancelled`", async () => {
  // A pipe nobody reads: what is written stays in the stream.
  const out = new PassThrough({ highWaterMark: 16, readableHighWaterMark: 16 });
  const outbox = new Outbox(out, 100);
  await outbox.room();
  outbox.line("x".repeat(200));
  assert.equal(outbox.full, true);
  let roomy = false;
  void outbox.room().then(() => (roomy = true));
  const slots = new Limiter(1);
  let slot: (() => void) | undefined;
  void outbox.gate(slots).acquire().then((release) => (slot = release));
  const abort = new AbortController();
  const waiting = outbox.room(abort.signal);
  abort.abort();
  await assert.rejects(waiting, (e: Error & { code?: string }) => e.code === "cancelled");
  for (let i = 0; i < 5; i++) await tick();
  assert.equal(roomy, false, "no room while the backlog is over the bound");
  assert.equal(slot, undefined, "no slot either");
  out.resume();
  for (let i = 0; i < 20; i++) await tick();
  assert.equal(roomy, true);
  assert.ok(slot !== undefined, "the slot is handed out once there is room");
  assert.equal(outbox.full, false);
});

test("Outbox: stalled only while answers wait and the client takes nothing", async () => {
  const out = new PassThrough({ highWaterMark: 16, readableHighWaterMark: 16 });
  const outbox = new Outbox(out, 100);
  assert.equal(outbox.stalled(0), false, "nothing waits");
  outbox.line("x".repeat(200));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(outbox.stalled(10), true);
  out.resume();
  for (let i = 0; i < 20 && outbox.backlog > 0; i++) await tick();
  assert.equal(outbox.stalled(0), false, "everything taken");
});

test("Intake: reads at most its bound ahead, then pauses the input; taking lines resumes it; the end is seen with lines still waiting", async () => {
  const input = new PassThrough();
  const intake = new Intake(input, 1000, 50);
  input.write("a".repeat(30) + "\n" + "b".repeat(30) + "\n");
  await tick();
  assert.equal(intake.size, 2);
  assert.equal(input.isPaused(), true, "over 50 bytes waiting: paused");
  input.end("c\n");
  for (let i = 0; i < 5; i++) await tick();
  assert.equal(intake.ended, false, "paused: the end is not read yet");
  assert.deepEqual(intake.shift(), { text: "a".repeat(30) });
  for (let i = 0; i < 5 && !intake.ended; i++) await tick();
  assert.equal(intake.ended, true, "the end is seen while a line still waits");
  assert.deepEqual(await intake.next(), { text: "b".repeat(30) });
  assert.deepEqual(await intake.next(), { text: "c" });
  assert.equal(await intake.next(), undefined);
});
