// parseStat reads /proc/<pid>/stat lines for the descendant watch and the watchdog: it must read what split(" ") read.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { parseStat } from "../../src/runtime/process/proc-stat.js";

/** parseStat as it was written before it cut out only its fields: the reference. */
function bySplit(pid: number, text: string) {
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { pid, ppid: Number(fields[1]), session: Number(fields[3]), start: fields[19]!, zombie: fields[0] === "Z" && Number(fields[17]) <= 1 };
}

const line = (comm: string, state: string, threads: number) =>
  `4242 (${comm}) ${state} 17 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 ${threads} 0 987654321 1234567 89 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n`;

test("parseStat reads a stat line's parent, session, start and zombie state as splitting it does, whatever the name holds", () => {
  const lines = [
    line("echo", "S", 1),
    line("a b) c (d", "R", 3),
    line(") Z 1 2 3", "S", 1),
    line("zombie", "Z", 1),
    // the first thread exited while others run: "Z", and alive
    line("threads", "Z", 4),
    line("", "D", 1),
  ];
  for (const text of lines) assert.deepEqual(parseStat(4242, text), bySplit(4242, text), text);
  const got = parseStat(4242, line("a b) c (d", "Z", 1));
  assert.deepEqual(got, { pid: 4242, ppid: 17, session: 4242, start: "987654321", zombie: true });
  // Short or broken lines (never from the kernel) give what they gave.
  for (const text of ["", ")", ") ", "1 (x) S 1", "1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19", "1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 ", "no parenthesis at all"]) {
    assert.deepEqual(parseStat(1, text), bySplit(1, text), JSON.stringify(text));
  }
});

test("parseStat reads every process this machine's /proc lists as splitting its line does", () => {
  let compared = 0;
  for (const name of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    let text: string;
    try {
      text = readFileSync(`/proc/${name}/stat`, "latin1");
    } catch {
      continue; // gone meanwhile
    }
    assert.deepEqual(parseStat(Number(name), text), bySplit(Number(name), text), text);
    compared++;
  }
  assert.ok(compared > 0, "no process read in /proc");
});
