// Red team: a run's process that nothing /proc shows ties to the run. The program leaves a process that ignores SIGTERM,
// in a session of its own, with another environment (no run mark), through forks that exit at once (its parent gone
// before hcp's watch can see it), which the /proc watch cannot find (SECURITY.md, "What hcp cannot protect against").
// Where hcp can make cgroups (run-cgroup.ts: root, as here in CI, or a user whose cgroup is delegated to them, set up
// here as systemd does), the run's child is born in a cgroup of its own, so that process is in it and is killed with
// it: at the end of the run (hcp run, exec, MCP), and by the watchdog when hcp is killed. Nothing else is killed, and no
// cgroup is left behind.

import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { cgroupFolder } from "../../src/runtime/process/run-cgroup.js";
import { trustBeforeRunSync } from "./helpers.js";
import { isolatedEnv } from "./hardening.js";
import { alive, eventually } from "../runtime/support.js";
import { HCP, mcpClient, tempDir } from "../transports/support.js";

/** The cgroup hcp's runs are made in (hcp is started by this process, so in its cgroup), where this machine lets one be made. */
function cgroupHome(): string | undefined {
  if (process.platform !== "linux") return undefined;
  const home = cgroupFolder(readFileSync("/proc/self/cgroup", "latin1"), readFileSync("/proc/self/mountinfo", "latin1"));
  if (home === undefined) return undefined;
  try {
    mkdirSync(`${home}/hcp-test-${process.pid}`);
    const killable = existsSync(`${home}/hcp-test-${process.pid}/cgroup.kill`);
    rmdirSync(`${home}/hcp-test-${process.pid}`);
    return killable ? home : undefined;
  } catch {
    return undefined;
  }
}

const HOME = cgroupHome();
const skip = HOME === undefined ? "hcp can make no cgroup here (it needs root or a delegated cgroup v2, and Linux 5.14)" : false;
/** Where the hierarchy holding HOME is mounted: a cgroup's path in /proc/self/cgroup is under it. */
const MOUNT = ((own) => (HOME === undefined || own === "/" ? HOME : HOME.slice(0, HOME.length - own.length)))(readFileSync("/proc/self/cgroup", "latin1").match(/^0::(.*)$/m)?.[1] ?? "/");

/**
 * `flee`: leaves the escapee (env -i, then setsid -f: a fork whose parent exits at once; SIGTERM ignored, no pipe of the
 * run), waits for its pid file, prints ok and exits. `stay`: the same, then sleeps (its own pid written too). `nest`: the
 * same, the escapee first moving itself into a cgroup it makes inside the run's. `squat`: makes the cgroups hcp would
 * make next if their names followed the run's own (`hcp-<hcp's pid>-<n+1>-p<pid namespace>`…), and prints them.
 */
function escapeePack(): { pack: string; dir: string } {
  const pack = tempDir("hcp-pack-");
  const dir = tempDir("hcp-escapee-");
  const script = `#!/bin/sh
C=$(sed -n 's/^0:://p' /proc/self/cgroup)
if [ "$1" = squat ]; then B=\${C##*/}; R=\${B#hcp-*-}; N=\${R%%-*}; S=\${R#"$N"}; for i in 1 2 3; do mkdir "${MOUNT}\${C%/*}/hcp-$PPID-$((N+i))$S" && echo "${MOUNT}\${C%/*}/hcp-$PPID-$((N+i))$S"; done; exit; fi
NEST=; [ "$1" = nest ] && NEST="mkdir ${MOUNT}$C/inner && echo \\$\\$ > ${MOUNT}$C/inner/cgroup.procs &&"
env -i /usr/bin/setsid -f /bin/sh -c "$NEST trap '' TERM; echo \\$\\$ > ${dir}/escapee.tmp && mv ${dir}/escapee.tmp ${dir}/escapee.pid; exec sleep 300" </dev/null >/dev/null 2>&1
while [ ! -f ${dir}/escapee.pid ]; do sleep 0.02; done
if [ "$1" = stay ]; then echo $$ > ${dir}/run.tmp && mv ${dir}/run.tmp ${dir}/run.pid; exec sleep 300; fi
echo ok
`;
  writeFileSync(join(pack, "flee.sh"), script);
  chmodSync(join(pack, "flee.sh"), 0o755);
  const verbs = {
    flee: { description: "Leave an escapee hcp's watch cannot see, print ok and exit.", cli: ["flee", "flee"], policy: "read" },
    stay: { description: "Leave the same escapee, then sleep.", cli: ["flee", "stay"], policy: "read" },
    nest: { description: "Leave the same escapee in a cgroup of its own inside the run's.", cli: ["flee", "nest"], policy: "read" },
    squat: { description: "Make the cgroups of the next runs.", cli: ["flee", "squat"], policy: "read" },
  };
  writeFileSync(join(pack, "surface.json"), JSON.stringify({ id: "flee", kind: "wrap", cliBin: "flee", wrap: { bin: "./flee.sh" }, verbs }));
  writeFileSync(join(pack, "policy.json"), JSON.stringify({ surface_id: "flee", verbs: { flee: "read", stay: "read", nest: "read", squat: "read" } }));
  writeFileSync(join(pack, "HARNESS.md"), "---\nname: flee\ndescription: Test pack.\n---\n\nTest pack.\n");
  return { pack, dir };
}

const pidIn = (dir: string, name: string): number => Number(readFileSync(join(dir, name), "utf8"));

/** The cgroups of the hcp with this pid still in place. */
const cgroupsOf = (hcp: number): string[] => readdirSync(HOME!).filter((name) => name.startsWith(`hcp-${hcp}-`));

/** This process's pid namespace, as a run's cgroup name ends (`-p<inode>`): hcp is started in it. */
const PID_NS = /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))![1]!;

/** A sleeper of the test's, in a session of its own like a run's child: never touched. */
const bystander = (): ChildProcess => spawn("sleep", ["300"], { detached: true, stdio: "ignore" });

function kill(...pids: (number | undefined)[]): void {
  for (const pid of pids) {
    try {
      if (pid !== undefined) process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

async function assertKilled(escapee: number, hcp: number, stranger: ChildProcess): Promise<void> {
  assert.ok(await eventually(() => !alive(escapee), 10_000), "the escapee, in the run's cgroup, was killed");
  assert.ok(await eventually(() => cgroupsOf(hcp).length === 0, 10_000), `no cgroup left behind: ${cgroupsOf(hcp).join(", ")}`);
  assert.ok(alive(stranger.pid!), "a process of no run was not signalled");
}

/** A fresh pack, and what calls its `verb` over `transport`: hcp's arguments and stdin, in an environment that trusts it. */
function callOn(transport: "run" | "exec", verb: "flee" | "stay" | "nest"): { dir: string; env: NodeJS.ProcessEnv; args: string[]; input: string } {
  const { pack, dir } = escapeePack();
  const env = isolatedEnv();
  const args = transport === "run" ? ["run", pack, verb] : ["exec", pack];
  if (transport === "run") trustBeforeRunSync(HCP, args, { env });
  return { dir, env, args, input: transport === "run" ? "" : JSON.stringify({ id: 1, pack: "flee", verb }) + "\n" };
}

/** Runs hcp with these arguments, stdin given, until it exits; returns its pid and what it printed. */
function hcpToEnd(args: string[], input: string, env: NodeJS.ProcessEnv): Promise<{ pid: number; code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [HCP, ...args], { env, cwd: tempDir("hcp-cwd-"), stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  child.stdin!.end(input);
  return new Promise((resolve) => child.on("close", (code) => resolve({ pid: child.pid!, code, stdout, stderr })));
}

/** Calls `verb` over hcp run and exec, each to its end: its escapee is killed then, and no cgroup is left. */
async function killedAtTheEnd(verb: "flee" | "nest"): Promise<void> {
  const stranger = bystander();
  try {
    for (const transport of ["run", "exec"] as const) {
      const { dir, env, args, input } = callOn(transport, verb);
      const done = await hcpToEnd(args, input, env);
      const escapee = pidIn(dir, "escapee.pid");
      try {
        assert.equal(done.code, 0, `${transport}: ${done.stderr}`);
        assert.match(done.stdout, /ok/);
        await assertKilled(escapee, done.pid, stranger);
      } finally {
        kill(escapee);
      }
    }
  } finally {
    kill(stranger.pid);
  }
}

test("attack: a program leaves a process that ignores SIGTERM, in a session of its own, without the run's mark (env -i), its parent gone at once (nothing /proc shows ties it to the run): born in the run's cgroup, it is killed at the run's end on hcp run and exec, and no cgroup is left", { skip }, async () => {
  await killedAtTheEnd("flee");
});

test("attack: the same escapee left by a tool called over MCP: killed at the call's end while the server goes on, and its cgroup removed", { skip }, async () => {
  const stranger = bystander();
  const { pack, dir } = escapeePack();
  const { client } = await mcpClient([pack], { env: isolatedEnv() });
  const server = (client.transport as unknown as { pid: number | null }).pid!;
  try {
    const result = (await client.callTool({ name: "flee_flee", arguments: {} })) as { content: { text: string }[] };
    assert.match(result.content[0]!.text, /ok/);
    const escapee = pidIn(dir, "escapee.pid");
    try {
      await assertKilled(escapee, server, stranger);
      assert.ok(alive(server), "the server goes on");
    } finally {
      kill(escapee);
    }
  } finally {
    await client.close();
    kill(stranger.pid);
  }
});

test("attack: the escapee moves itself into a cgroup it makes inside the run's (as a program using a controller may), which the run's cgroup.procs does not list: still killed at the run's end (run, exec), and every cgroup removed, its inner one first", { skip }, async () => {
  await killedAtTheEnd("nest");
});

test("attack: a run makes the cgroups hcp would make next, were their names told by the run's own (its parent's pid, its cgroup's number): the next run still has a cgroup, and its escapee is killed", { skip }, async () => {
  const stranger = bystander();
  const { pack, dir } = escapeePack();
  const { client } = await mcpClient([pack], { env: isolatedEnv() });
  const server = (client.transport as unknown as { pid: number | null }).pid!;
  let squatted: string[] = [];
  try {
    const made = (await client.callTool({ name: "flee_squat", arguments: {} })) as { content: { text: string }[] };
    squatted = made.content[0]!.text.split("\n").filter((line) => line.startsWith("/"));
    assert.equal(squatted.length, 3, made.content[0]!.text);
    await client.callTool({ name: "flee_flee", arguments: {} });
    const escapee = pidIn(dir, "escapee.pid");
    try {
      for (const path of squatted) rmdirSync(path);
      await assertKilled(escapee, server, stranger);
    } finally {
      kill(escapee);
    }
  } finally {
    await client.close();
    for (const path of squatted) if (existsSync(path)) rmdirSync(path);
    kill(stranger.pid);
  }
});

test("attack: hcp is killed (SIGKILL) while the program sleeps beside the same escapee: the watchdog kills what is in the run's cgroup, and removes it (hcp run, exec)", { skip }, async () => {
  const stranger = bystander();
  try {
    for (const transport of ["run", "exec"] as const) {
      const { dir, env, args, input } = callOn(transport, "stay");
      const child = spawn(process.execPath, [HCP, ...args], { env, cwd: tempDir("hcp-cwd-"), stdio: ["pipe", "ignore", "pipe"] });
      let stderr = "";
      child.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
      // stdin stays open: hcp must not end because its input did.
      child.stdin!.write(input);
      const closed = new Promise((resolve) => child.on("close", resolve));
      try {
        assert.ok(await eventually(() => existsSync(join(dir, "run.pid")), 30_000), `the verb started: ${stderr}`);
        assert.equal(cgroupsOf(child.pid!).length, 1, "the run has a cgroup");
        child.kill("SIGKILL");
        await closed;
        const program = pidIn(dir, "run.pid");
        const escapee = pidIn(dir, "escapee.pid");
        try {
          assert.ok(await eventually(() => !alive(program), 10_000), "the run's program was killed");
          await assertKilled(escapee, child.pid!, stranger);
        } finally {
          kill(program, escapee);
        }
      } finally {
        child.kill("SIGKILL");
      }
    }
  } finally {
    kill(stranger.pid);
  }
});

test("attack: hcp and its watchdog killed together leave a run's cgroup with its escapee in it: the next hcp that makes a cgroup kills what is in it and removes it; one whose hcp still runs is left, and one named by another pid namespace or an earlier hcp", { skip }, async () => {
  const stranger = bystander();
  // The pid of a process gone (hcp, killed), and one that runs (another hcp's).
  const gone = spawn("true");
  await new Promise((resolve) => gone.on("close", resolve));
  const running = bystander();
  const left = `${HOME}/hcp-${gone.pid}-1-p${PID_NS}`;
  const kept = `${HOME}/hcp-${running.pid}-1-p${PID_NS}`;
  // The same pid in another pid namespace (a container's hcp sharing the cgroup tree), and an earlier hcp's name: not
  // this hcp's to judge by a pid it cannot see.
  const foreign = [`${HOME}/hcp-${gone.pid}-2-p1`, `${HOME}/hcp-${gone.pid}-3`];
  for (const path of [left, kept, ...foreign]) mkdirSync(path);
  const escapees = [bystander(), bystander(), bystander(), bystander()];
  try {
    for (const [i, path] of [left, kept, ...foreign].entries()) writeFileSync(`${path}/cgroup.procs`, String(escapees[i]!.pid));
    const { env, args, input } = callOn("run", "flee");
    const done = await hcpToEnd(args, input, env);
    assert.equal(done.code, 0, done.stderr);
    assert.ok(await eventually(() => !alive(escapees[0]!.pid!), 10_000), "what the left cgroup held was killed");
    assert.ok(await eventually(() => !existsSync(left), 10_000), "the left cgroup was removed");
    assert.ok(alive(escapees[1]!.pid!) && existsSync(kept), "the cgroup of an hcp whose pid runs was left as it was");
    assert.ok(alive(escapees[2]!.pid!) && alive(escapees[3]!.pid!), "the cgroups of another pid namespace's hcp, and of an earlier hcp, were left as they were");
    assert.ok(alive(stranger.pid!), "a process of no run was not signalled");
  } finally {
    kill(stranger.pid, running.pid, ...escapees.map((e) => e.pid));
    await eventually(() => escapees.slice(1).every((e) => !alive(e.pid!)));
    for (const path of [left, kept, ...foreign]) if (existsSync(path)) rmdirSync(path);
  }
});

test("attack: an hcp in a pid namespace of its own (unshare -p as root: a container's, sharing this cgroup tree), making its first cgroup, ends no run of an hcp whose pid it cannot see", { skip: skip || (spawnSync("unshare", ["-p", "-f", "--mount-proc", "true"]).status !== 0 ? "this machine makes no pid namespace" : false) }, async () => {
  const stranger = bystander();
  const { dir, env, args, input } = callOn("exec", "stay");
  const outer = spawn(process.execPath, [HCP, ...args], { env, cwd: tempDir("hcp-cwd-"), stdio: ["pipe", "ignore", "ignore"] });
  const closed = new Promise((resolve) => outer.on("close", resolve));
  // stdin stays open: the call goes on until the test ends it.
  outer.stdin!.write(input);
  const other = callOn("exec", "flee");
  try {
    assert.ok(await eventually(() => existsSync(join(dir, "run.pid")), 30_000), "the run sleeps beside its escapee");
    const watched = [pidIn(dir, "run.pid"), pidIn(dir, "escapee.pid")];
    // The other hcp runs a verb: its first cgroup, and with it its look for the cgroups of hcps gone.
    const inner = spawnSync("unshare", ["-p", "-f", "--mount-proc", process.execPath, HCP, ...other.args], { env: other.env, input: other.input, encoding: "utf8", timeout: 60_000 });
    assert.equal(inner.status, 0, inner.stderr);
    assert.match(inner.stdout, /"stdout":"ok\\n"/, inner.stdout);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(watched.map(alive), [true, true], "the run of the hcp it could not see, and its escapee, were not signalled");
    assert.equal(cgroupsOf(outer.pid!).length, 1, "that run's cgroup is in place");
  } finally {
    outer.kill("SIGTERM");
    await closed;
    kill(stranger.pid, ...["escapee.pid", "run.pid"].map((f) => (existsSync(join(dir, f)) ? pidIn(dir, f) : undefined)), existsSync(join(other.dir, "escapee.pid")) ? pidIn(other.dir, "escapee.pid") : undefined);
  }
});

test("a user whose cgroup is delegated to them, not root (as systemd's user services and the apps they start are): their run's escapee is born in a cgroup hcp makes inside theirs, and is killed with it", { skip: skip || (process.getuid?.() === 0 ? false : "needs root, to hand a cgroup to another user") }, async () => {
  const user = 54321;
  // What systemd does for a user's service: a cgroup of theirs, the process started in it.
  const delegated = `${HOME}/hcp-test-delegated-${process.pid}`;
  mkdirSync(delegated);
  for (const file of ["", "/cgroup.procs", "/cgroup.threads", "/cgroup.subtree_control"]) chownSync(`${delegated}${file}`, user, user);
  const { pack, dir } = escapeePack();
  // The user reaches the pack and the pid files' folder through the tests' temporary folder.
  chmodSync(dirname(pack), 0o711);
  chmodSync(pack, 0o755);
  chmodSync(dir, 0o777);
  const home = tempDir("hcp-user-");
  chownSync(home, user, user);
  const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: home, XDG_STATE_HOME: join(home, "state"), XDG_CONFIG_HOME: join(home, "config") };
  const child = spawn("/bin/sh", ["-c", 'echo $$ > "$0/cgroup.procs" && exec setpriv --reuid=54321 --regid=54321 --clear-groups "$@"', delegated, process.execPath, HCP, "exec", pack], { env, cwd: "/", stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  child.stdin!.end(JSON.stringify({ id: 1, pack: "flee", verb: "flee" }) + "\n");
  const code = await new Promise((resolve) => child.on("close", resolve));
  let escapee: number | undefined;
  try {
    assert.equal(code, 0, stderr);
    assert.match(stdout, /"stdout":"ok\\n"/);
    escapee = pidIn(dir, "escapee.pid");
    assert.ok(await eventually(() => !alive(escapee!), 10_000), "the escapee, in the run's cgroup, was killed");
    assert.deepEqual(readdirSync(delegated).filter((name) => name.startsWith("hcp-")), [], "the run's cgroup, made inside the user's, was removed");
  } finally {
    kill(escapee);
    await eventually(() => readFileSync(`${delegated}/cgroup.procs`, "latin1") === "");
    rmdirSync(delegated);
  }
});
