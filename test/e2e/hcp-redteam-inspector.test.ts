// Red team: SIGUSR1 starts Node's inspector in a process that does not catch it, on a port where any local user can run
// code in that process. A run's program (or an agent through a verb that signals a pid it names) sends it to hcp and to
// its watchdog: neither opens a port, and both go on.

import assert from "node:assert/strict";
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { test } from "node:test";
import { isolatedEnv, probePack } from "./hardening.js";
import { alive, eventually, watchdogOf } from "../runtime/support.js";
import { mcpClient } from "../transports/support.js";

/** The TCP ports the process with this pid listens on (its sockets, found in /proc/net/tcp and tcp6 in state LISTEN). */
function listening(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (socket !== null) inodes.add(socket[1]!);
    } catch {
      // closed meanwhile
    }
  }
  const ports: number[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(table, "latin1").split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === "0A" && inodes.has(f[9]!)) ports.push(parseInt(f[1]!.split(":")[1]!, 16));
    }
  }
  return ports;
}

/** Why the port an inspector would open cannot be watched here: not Linux, or another process holds it already. */
function unobservable(): string | false {
  if (process.platform !== "linux") return "reads /proc";
  const taken = ["/proc/net/tcp", "/proc/net/tcp6"].some((table) => readFileSync(table, "latin1").split("\n").some((line) => / [0-9A-F]+:2405 [0-9A-F]+:0000 0A /.test(line)));
  return taken ? "another process listens on port 9229, where an inspector would listen" : false;
}

test("attack: a run's program sends SIGUSR1 to hcp serve (its parent) and to hcp's watchdog, which would open Node's inspector to every local user: no port is opened, and both go on", { skip: unobservable() }, async () => {
  // The program signals its parent, hcp, then prints.
  const root = probePack("usr1", { signal: { description: "Signal hcp.", cli: ["sh", "-c", "kill -USR1 $PPID; echo sent"], policy: "read" } }, { cliBin: "sh", wrap: { bin: "/bin/sh" } });
  const { client, stderr } = await mcpClient([root], { env: isolatedEnv() });
  const server = (client.transport as unknown as { pid: number | null }).pid!;
  try {
    const first = (await client.callTool({ name: "usr1_signal", arguments: {} })) as { content: { text: string }[] };
    assert.match(first.content[0]!.text, /sent/);
    // The watchdog, started with the first run, is signalled too (a run's program can find it: hcp's child), once it has
    // started (in its first tens of milliseconds Node has not run its code yet: SECURITY.md's limits).
    const watchdog = watchdogOf(server);
    assert.ok(watchdog !== undefined, "the watchdog runs");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    process.kill(watchdog, "SIGUSR1");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const pid of [server, watchdog]) {
      assert.ok(alive(pid), `${pid} goes on`);
      assert.deepEqual(listening(pid), [], `${pid === server ? "hcp" : "the watchdog"} listens on no port`);
    }
    const again = (await client.callTool({ name: "usr1_signal", arguments: {} })) as { content: { text: string }[] };
    assert.match(again.content[0]!.text, /sent/, "the server still answers");
    assert.doesNotMatch(stderr(), /Debugger listening/);
  } finally {
    await client.close();
  }
  assert.ok(await eventually(() => !alive(server)));
});
