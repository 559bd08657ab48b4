// Red team against the faster descendant watch (§6.4, SECURITY.md "Processes"): the pid cursor that skips listing
// /proc, the reaper that stops looking up what it found dead or empty, and the exit path a tick later. Each test
// starts the built hcp with a program that tries to leave a process behind, and asserts none survives.

// What /proc alone shows: where hcp could make cgroups, this file runs where it cannot (test/without-cgroups.ts).
import "../without-cgroups.js";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { fixture, trustBeforeRunSync } from "./helpers.js";
import { eventually } from "../runtime/support.js";
import { McpError, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { HCP, hcp, mcpClient, tempDir } from "../transports/support.js";
import { marks, witnessPack } from "./witness-pack.js";
import { isolatedEnv, probePack } from "./hardening.js";
import { bootTicks } from "../../src/runtime/process/boot-clock.js";

/**
 * Whether the process runs, begun before `before` (clock ticks since boot): one begun since has the id of an escapee
 * gone meanwhile, which on a machine making processes fast (pid_max 32768, a test run's load) comes round in seconds. A
 * "Z" in /proc is not enough to call it dead: a process whose first thread exited alone shows "Z" while its other
 * threads run (a true zombie has one thread left).
 */
function runs(pid: number, before = Number.POSITIVE_INFINITY): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (fields[0] !== "Z" || Number(fields[17]) > 1) && Number(fields[19]) < before;
  } catch {
    return false;
  }
}

/** The pids the escapees wrote (files named `*.pid` in dir). */
function pidsIn(dir: string): number[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".pid"))
    .map((f) => Number(readFileSync(join(dir, f), "utf8")));
}

/** Waits (a generous hang guard, not a timing) until none of the pids runs; kills and names any survivor. */
async function noSurvivor(pids: number[], what: string): Promise<void> {
  assert.ok(pids.length > 0 && pids.every((p) => Number.isInteger(p) && p > 1), `${what}: the escapees wrote their pids: ${pids.join(" ")}`);
  // The runs are over: a process begun from now on is none of their escapees.
  const before = bootTicks() ?? Number.POSITIVE_INFINITY;
  const escaped = (pid: number) => runs(pid, before);
  await eventually(() => !pids.some(escaped), 5000);
  const survivors = pids.filter(escaped);
  for (const pid of survivors) process.kill(pid, "SIGKILL");
  assert.deepEqual(survivors, [], `${what}: ${survivors.length} of ${pids.length} escapees outlived their run`);
}

/**
 * A pack whose verbs run `program` with the given argv after the bin, with an environment of `PATH` alone (`marked`: as
 * hcp gives it, with the run's mark). The run's mark (HCP_RUN_ID, which every process the program starts inherits) finds every
 * escapee of these tests by itself (test/e2e/hcp-redteam-run-mark.test.ts); without it, only what /proc shows of a
 * process's place (its parent, session, group and pipes) ties it to the run, which is what these tests are about.
 */
function programPack(id: string, program: string, verbs: Record<string, string[]>, { marked = false } = {}): string {
  const surfaceVerbs: Record<string, object> = {};
  const policy: Record<string, string> = {};
  for (const [name, argv] of Object.entries(verbs)) {
    surfaceVerbs[name] = { description: name, cli: ["prog", ...argv], policy: "read" };
    policy[name] = "read";
  }
  const bin = marked ? program : script(`exec env -i PATH="$PATH" '${program.replaceAll("'", "'\\''")}' "$@"`);
  return probePack(id, surfaceVerbs, { cliBin: "prog", wrap: { bin } }, { verbs: policy });
}

/** `hcp run ROOT VERB` exits 0, and none of the escapees its program left (their pids in dir) outlives the run. */
async function runLeavesNoSurvivor(root: string, verb: string, dir: string): Promise<void> {
  const r = await hcp(["run", root, verb], { env: isolatedEnv(), timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  await noSurvivor(pidsIn(dir), "hcp run");
}

/** A shell script as a wrapped program. */
function script(body: string): string {
  const file = join(tempDir("hcp-watch-prog-"), "prog.sh");
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

/** A TERM-ignoring sleeper in a session of its own, its pid written to the file named by $1 (sh -c '…' FILE). */
const SLEEPER = `setsid sh -c 'trap "" TERM; echo $$ > "$0.tmp"; mv "$0.tmp" "$0"; exec sleep 120'`;

const THREAD_ESCAPEE = fixture("bin/thread-escapee.py");

test("a setsid escapee whose first thread exits alone (/proc shows it a zombie, it runs on) is killed after the run", async () => {
  const dir = tempDir("hcp-watch-pids-");
  const root = programPack("zombie", THREAD_ESCAPEE, { seen: ["seen", join(dir, "seen.pid")] });
  await runLeavesNoSurvivor(root, "seen", dir);
});

test("a double-forked escapee holding the run's pipes, its first thread gone (its fd folder empty), is found by the pipes and killed", async () => {
  const dir = tempDir("hcp-watch-pids-");
  const root = programPack("zombie", THREAD_ESCAPEE, { holder: ["holder", join(dir, "holder.pid")] });
  await runLeavesNoSurvivor(root, "holder", dir);
});

test("a child that forks one grandchild that setsids (the only ids given out: the child's and the grandchild's) leaves no survivor", async () => {
  const dir = tempDir("hcp-watch-pids-");
  const root = programPack("one", script(`${SLEEPER} "$1" </dev/null >/dev/null 2>&1 &\nsleep 1`), { one: [join(dir, "one.pid")] });
  await runLeavesNoSurvivor(root, "one", dir);
});

test("a child whose 200 threads move the pid cursor around a setsid escapee leaves no survivor", async () => {
  const dir = tempDir("hcp-watch-pids-");
  const root = programPack("threads", THREAD_ESCAPEE, { threads: ["threads", join(dir, "threads.pid")] });
  await runLeavesNoSurvivor(root, "threads", dir);
});

test("hcp run while other processes begin all the time (its first listing of /proc skips only what began before the run): each run's setsid escapee is killed, a process begun before is not", async () => {
  const dir = tempDir("hcp-watch-pids-");
  // Forks every few ms: the kernel's count moves during each run, so each fresh hcp lists /proc while its run lasts.
  const forker = spawn("sh", ["-c", "while :; do sleep 0.005; done"], { detached: true, stdio: "ignore" });
  const bystander = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
  const verbs = Object.fromEntries([0, 1, 2, 3, 4].map((i) => [`r${i}`, [join(dir, `r${i}.pid`)]]));
  // The escapee holds no pipe of the run: only the tree ties it to the run, while its parent lives.
  const root = programPack("first", script(`${SLEEPER} "$1" </dev/null >/dev/null 2>&1 &\nwhile [ ! -s "$1" ]; do sleep 0.01; done\nsleep 0.3`), verbs);
  try {
    for (const verb of Object.keys(verbs)) {
      const r = await hcp(["run", root, verb], { env: isolatedEnv(), timeoutMs: 60_000 });
      assert.equal(r.code, 0, r.stderr);
    }
    await noSurvivor(pidsIn(dir), "hcp run");
    assert.ok(runs(bystander.pid!), "a process begun before the runs was not signalled");
  } finally {
    process.kill(-forker.pid!, "SIGKILL");
    bystander.kill("SIGKILL");
  }
});

/**
 * A process outside every run that listens on the unix socket `path`, takes one connection and never receives on it:
 * file descriptors sent to it stay in its queue, in no process's table (its connections are kept open). Resolves once it
 * listens.
 */
async function unreceivedQueue(path: string): Promise<ChildProcess> {
  const keeper = spawn("python3", ["-c", "import socket, sys\ns = socket.socket(socket.AF_UNIX)\ns.bind(sys.argv[1])\ns.listen(8)\nprint('ready', flush=True)\nkept = []\nwhile True:\n    kept.append(s.accept())", path], { stdio: ["ignore", "pipe", "ignore"] });
  await new Promise<void>((resolve, reject) => {
    keeper.stdout!.once("data", () => resolve());
    keeper.once("exit", (code) => reject(new Error(`the keeper exited (${code})`)));
  });
  return keeper;
}

test("a run whose output is still held at its end by what hcp cannot find (its pipes sent over a socket and never received) is answered with a warning that something of it may still run: hcp run, hcp exec and MCP", async () => {
  const dir = tempDir("hcp-watch-held-");
  const path = join(dir, "queue");
  const keeper = await unreceivedQueue(path);
  try {
    const program = script(`exec python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); socket.send_fds(s, [b"x"], [1, 2])' "$1"`);
    const root = programPack("held", program, { pass: [path] });
    const r = await hcp(["run", root, "pass"], { env: isolatedEnv(), timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^Warning: a process that left the run still held its output when hcp stopped waiting for it, and could be neither found nor killed: it may still be running/m);
    // hcp exec names the request on its stderr, by an id that cannot act on the operator's terminal (here a C1 CSI).
    const request = JSON.stringify({ id: "held\u009b1", pack: "held", verb: "pass" }) + "\n";
    const e = await hcp(["exec", root], { env: isolatedEnv(), stdin: request, timeoutMs: 60_000 });
    assert.equal(e.code, 0, e.stderr);
    assert.match(e.stdout, /"ok":true/, e.stdout + e.stderr);
    assert.match(e.stderr, /^Warning: request "held\\u009b1" \(held pass\): a process that left the run still held its output/m);
    const logs: string[] = [];
    const { client, stderr } = await mcpClient([root], { env: isolatedEnv(), onLog: (data) => logs.push(data) });
    try {
      const result = await client.callTool({ name: "held_pass", arguments: {} });
      assert.notEqual(result.isError, true, stderr());
      assert.ok(logs.some((l) => l.startsWith("held_pass: a process that left the run still held its output")), logs.join("\n"));
    } finally {
      await client.close();
    }
  } finally {
    keeper.kill("SIGKILL");
  }
});

/**
 * Programs that try to leave a TERM-ignoring sleeper, each a verb `MODE PIDFILE`. `quick` exits 0.3 s after its double
 * fork: one gone before hcp first reads its pipes is a limit SECURITY.md states (a loaded machine can delay that read).
 */
const ESCAPES = script(`case "$1" in
  linger) ${SLEEPER} "$2" </dev/null >/dev/null 2>&1 & sleep 0.5 ;;
  quick) ( ${SLEEPER} "$2" & ) ; sleep 0.3 ;;
esac
while [ ! -s "$2" ]; do sleep 0.01; done`);

test("hcp exec: runs one right after another (one lingering over a setsid escapee, one exiting soon after a double fork whose escapee holds the pipes) leave no survivor", async () => {
  const dir = tempDir("hcp-watch-pids-");
  const modes = ["linger", "quick"];
  const verbs = Object.fromEntries(modes.flatMap((m) => [0, 1].map((i) => [`${m}${i}`, [m, join(dir, `${m}${i}.pid`)]])));
  const root = programPack("seq", ESCAPES, verbs);
  // One call at a time: each run starts as the one before ends, while the watch's poll still runs.
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "seq", verbs: Object.fromEntries(Object.keys(verbs).map((v) => [v, "read"])), limits: { concurrency: 1 } }));
  const lines = Object.keys(verbs).map((verb, i) => JSON.stringify({ id: i, pack: "seq", verb }) + "\n");
  const r = await hcp(["exec", root], { env: isolatedEnv(), stdin: lines.join(""), timeoutMs: 120_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.split("\n").filter((l) => l.includes('"ok":true')).length, lines.length, r.stdout + r.stderr);
  await noSurvivor(pidsIn(dir), "hcp exec");
});

test("an escapee that is the first process of a new pid namespace (unshare -U -p -f) leaves no survivor", async (t) => {
  if (spawnSync("unshare", ["-U", "-p", "-f", "true"]).status !== 0) {
    t.skip("this kernel does not let this user make a user and pid namespace");
    return;
  }
  const dir = tempDir("hcp-watch-pids-");
  // Its pid as this namespace's /proc names it (the namespace's own /proc is not mounted).
  const init = `import os, signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); open(sys.argv[1] + ".tmp", "w").write(os.readlink("/proc/self")); os.rename(sys.argv[1] + ".tmp", sys.argv[1]); time.sleep(120)`;
  const root = programPack("ns", script(`setsid unshare -U -p -f python3 -c '${init}' "$1" </dev/null >/dev/null 2>&1 &\nwhile [ ! -s "$1" ]; do sleep 0.01; done\nsleep 0.5`), { ns: [join(dir, "ns.pid")] });
  await runLeavesNoSurvivor(root, "ns", dir);
});

test("a pid cursor that does not follow new processes (frozen /proc/loadavg) hides no escapee: a setsid escapee with no pipe of its run is killed", async (t) => {
  // Some kernels and sandboxes print a cursor that does not follow new processes (gVisor prints 0; container kernels
  // and LXCFS print their own). Here /proc/loadavg is frozen by a bind mount in namespaces of the test's own.
  if (spawnSync("unshare", ["-Urm", "sh", "-c", "mount --bind /dev/null /proc/loadavg"]).status !== 0) {
    t.skip("this kernel does not let this user make a user and mount namespace");
    return;
  }
  const dir = tempDir("hcp-watch-pids-");
  const frozen = join(dir, "loadavg");
  writeFileSync(frozen, "0.00 0.00 0.00 1/100 0\n");
  const root = programPack("frozen", script(`${SLEEPER} "$1" </dev/null >/dev/null 2>&1 &\nsleep 1`), { leave: [join(dir, "frozen.pid")] });
  const mounted = ["-Urm", "sh", "-c", 'mount --bind "$1" /proc/loadavg && shift && exec "$@"', "sh", frozen];
  const env = isolatedEnv();
  trustBeforeRunSync(HCP, ["run", root], { env });
  const r = spawnSync("unshare", [...mounted, process.execPath, HCP, "run", root, "leave"], { env, encoding: "utf8", timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  await noSurvivor(pidsIn(dir), "hcp run under a frozen pid cursor");
});

/**
 * Verbs of programs that give a setsid escapee (TERM ignored, no pipe of the run) the pid of a process the watch
 * listed, gone since, as ids wrap on a busy machine (here the pid namespace's next id is set: ns_last_pid).
 * `first FILE` leaves a TERM-ignoring member of its group holding its stdout, which the watch lists until it kills it
 * at the end of the kill grace, and writes its pid; `reuse FILE PIDFILE` at once starts the escapee under that pid,
 * and lingers while the watch reads the tree.
 */
const REUSE = script(`case "$1" in
  first) sh -c 'trap "" TERM; echo $$ > "$0.tmp"; mv "$0.tmp" "$0"; exec sleep 120' "$2" &
    while [ ! -s "$2" ]; do sleep 0.01; done ;;
  reuse) read first < "$2"
    echo $((first - 1)) > /proc/sys/kernel/ns_last_pid
    ${SLEEPER} "$3" </dev/null >/dev/null 2>&1 &
    i=0; while [ ! -s "$3" ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
    sleep 0.5 ;;
esac`);

/** unshare's flags: a user, pid and mount namespace of the test's own, which ends with its first process. */
const NAMESPACE = ["-Urpmf", "--mount-proc", "--kill-child"];

/** A word for sh. */
const quoted = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * Runs `FEED | hcp HCPARGS…` in a namespace of its own (/proc/loadavg frozen when `frozen`), then asserts from inside
 * (whose pids only it can name) that the escapee (its pid in the file `escapee`) took the pid in the file `taken` and
 * does not run. Skips the test where this kernel does not let this user make the namespace and set its next pid.
 */
function reusedPidIsKilled(t: TestContext, frozen: boolean, dir: string, feed: string, hcpArgs: string[], escapee: string, taken: string): void {
  const loadavg = join(dir, "loadavg");
  writeFileSync(loadavg, "0.00 0.00 0.00 1/100 0\n");
  const env = { ...isolatedEnv(), LOADAVG: loadavg, NODE: process.execPath, HCP, ESCAPEE: escapee, TAKEN: taken };
  trustBeforeRunSync(HCP, hcpArgs, { env });
  const freeze = frozen ? 'mount --bind "$LOADAVG" /proc/loadavg || exit 9\n' : "";
  if (spawnSync("unshare", [...NAMESPACE, "sh", "-c", `${freeze}echo 1 > /proc/sys/kernel/ns_last_pid`], { env }).status !== 0) {
    t.skip("this kernel does not let this user make a user, pid and mount namespace and set its next pid");
    return;
  }
  // hcp is not the namespace's first process (this shell is), as hcp is not init elsewhere.
  // Ids that come round start again at 300: every process here takes one above. Where the kernel lets a pid namespace
  // have its own pid_max (Linux 6.14), a small one makes a round of ids short.
  const inside = `${freeze}echo 4000 > /proc/sys/kernel/pid_max 2>/dev/null
echo 1000 > /proc/sys/kernel/ns_last_pid || exit 7
${feed} | "$NODE" "$HCP" ${hcpArgs.map(quoted).join(" ")} || exit 8
read escapee < "$ESCAPEE"; read taken < "$TAKEN"
# Read with builtins (a command run here could be given the escapee's id once it is free: a small pid_max), until it is
# gone or a zombie (a hang guard: a killed process with a large address space takes a while to exit, "R" meanwhile).
i=0
while :; do
  state=gone
  if read -r line < /proc/$escapee/stat 2>/dev/null; then rest=\${line##*") "}; state=\${rest%% *}; fi
  case $state in gone|Z) break ;; esac
  i=$((i + 1)); [ $i -ge 100 ] && break
  sleep 0.05
done
echo "escapee $escapee taken $taken state \${state:-gone}"`;
  const r = spawnSync("unshare", [...NAMESPACE, "sh", "-c", inside], { env, encoding: "utf8", timeout: 60_000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const m = /escapee (\d+) taken (\d+) state (\S+)/.exec(r.stdout);
  assert.ok(m, r.stdout + r.stderr);
  assert.equal(m[1], m[2], "the escapee took the pid of the member");
  assert.ok(m[3] === "gone" || m[3] === "Z", `the escapee outlived its run (state ${m[3]})`);
}

test("hcp exec under a frozen pid cursor: an escapee that takes the pid of a process of the run before (ids wrapped) is killed", async (t) => {
  // The watch's last listing, made in the run before, holds that process. Where the cursor does not follow (gVisor,
  // LXCFS), a process given its pid later cannot be told new from that listing by its pid: its start time tells it.
  const dir = tempDir("hcp-watch-pids-");
  const first = join(dir, "first");
  const escapee = join(dir, "escapee.pid");
  const root = programPack("wrap", REUSE, { first: ["first", first], reuse: ["reuse", first, escapee] });
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "wrap", verbs: { first: "read", reuse: "read" }, limits: { concurrency: 1 } }));
  // The second call comes a while after the first run has ended (its kill grace is 2 s): no run is on when it starts.
  // On a quiet machine no process begins meanwhile, and the second run starts without listing /proc afresh.
  const [one, two] = ["first", "reuse"].map((verb, i) => quoted(JSON.stringify({ id: i + 1, pack: "wrap", verb })));
  reusedPidIsKilled(t, true, dir, `{ echo ${one}; sleep 4; echo ${two}; }`, ["exec", root], escapee, first);
});

/** test/fixtures/bin/pid-taker.py: stops hcp, and gives a setsid escapee the pid of a member of its run, gone since. */
const PID_TAKER = fixture("bin/pid-taker.py");

// The watch knows the member by its pid and start time: a later process with that pid is another, new one. Where the
// cursor follows, the ids go a full round while hcp is stopped: the cursor, back where the watch last read it, says
// nothing was given out since, and only the count of processes made tells. Where it does not, the id is simply given
// again (few processes made): only the start time tells.
// Where the program holds most ids (threads that wait) before hcp's last listing, a full round of the rest takes fewer
// processes made than half of pid_max: only a bound that counts the ids in use then tells.
for (const [frozen, mode, how] of [
  [false, "round", "the ids went a full round"],
  [true, "jump", "ids wrapped"],
  [false, "held", "the ids it did not hold went a full round, fewer than half of pid_max"],
] as const) {
  test(`hcp run${frozen ? " under a frozen pid cursor" : ""}: a setsid escapee that takes the pid of a run's process the watch knows, gone since (hcp stopped while ${how}), is killed`, async (t) => {
    const dir = tempDir("hcp-watch-pids-");
    const escapee = join(dir, "escapee.pid");
    const member = join(dir, "member");
    const root = programPack("swap", PID_TAKER, { swap: [mode, escapee, member] });
    reusedPidIsKilled(t, frozen, dir, "true", ["run", root, "swap"], escapee, member);
  });
}

/**
 * A program that leaves a daemon the watch finds (double fork, a session of its own, no pipe of the run) which takes
 * SIGTERM for nothing and from then on starts a process every few ms, each in a session of its own (TERM ignored): one
 * that finds the daemon gone writes its pid and stays (test/fixtures/bin/fork-daemon.py).
 */
const FORK_DAEMON = fixture("bin/fork-daemon.py");

test("a daemon that forks a process every few ms from SIGTERM on (each in a session of its own) leaves none behind when killed at the end of the kill grace", async () => {
  // The watch reads the tree every 25 ms: what the daemon starts after the last read is found only if the tree is read
  // again while the daemon lives, before it is killed.
  const dir = tempDir("hcp-watch-pids-");
  const root = programPack("forks", FORK_DAEMON, { forks: ["on-term", dir] });
  try {
    const r = await hcp(["run", root, "forks"], { env: isolatedEnv(), timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(existsSync(join(dir, "forking")), "the daemon was found, got SIGTERM and forked until killed");
    // A process started last decides 0.2 s after it starts whether the daemon is gone.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const survivors = pidsIn(dir).filter(runs);
    assert.deepEqual(survivors, [], `${survivors.length} processes the daemon started outlived the run`);
    assert.equal(runs(Number(readFileSync(join(dir, "k"), "utf8"))), false, "the daemon outlived the run");
  } finally {
    for (const pid of [...pidsIn(dir), ...(existsSync(join(dir, "k")) ? [Number(readFileSync(join(dir, "k"), "utf8"))] : [])]) {
      if (runs(pid)) process.kill(pid, "SIGKILL");
    }
  }
});

/**
 * A process made with clone(CLONE_PARENT) that makes a session of its own, ignores SIGTERM, holds no pipe of the run and
 * writes its pid. Its maker (the second argument): `child`, the run's child itself, which lingers while the watch reads
 * the tree (the sibling's parent is then the child's: hcp); or `daemon`, a daemon the child double-forks (its parent gone
 * at once: init has it), which makes a session of its own and then the sibling (whose parent is init too), and exits at
 * once. Neither the sibling's parent, its session, nor its session's maker was ever the run's: the child's sibling is
 * tied to the run by its parent, hcp, alone (run without the mark: programPack); a daemon's sibling only by the run's
 * mark in its environment, which it inherits.
 */
const CLONE_PARENT = script(`exec python3 -c '
import ctypes, os, platform, signal, sys, time
pidfile, maker = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
SYS_clone = {"x86_64": 56, "aarch64": 220}[platform.machine()]
CLONE_PARENT = 0x00008000
def wait_for_sibling():
    for _ in range(1000):
        if os.path.exists(pidfile):
            break
        time.sleep(0.01)
if maker == "daemon":
    if os.fork() != 0:
        wait_for_sibling()
        sys.exit(0)
    if os.fork() != 0:
        os._exit(0)
    os.setsid()
pid = libc.syscall(SYS_clone, CLONE_PARENT | signal.SIGCHLD, 0, 0, 0, 0)
if pid == 0:
    os.setsid()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    open(pidfile + ".tmp", "w").write(str(os.getpid()))
    os.rename(pidfile + ".tmp", pidfile)
    time.sleep(120)
    os._exit(0)
if maker == "daemon":
    os._exit(0)
wait_for_sibling()
time.sleep(0.5)
' "$1" "$2"`);

/** `hcp run` of CLONE_PARENT made by `maker` leaves no survivor. */
async function siblingLeavesNoSurvivor(t: TestContext, maker: "child" | "daemon"): Promise<void> {
  if (!["x86_64", "aarch64"].includes(spawnSync("uname", ["-m"], { encoding: "utf8" }).stdout.trim())) {
    t.skip("the clone system call's number is known here for x86_64 and aarch64 only");
    return;
  }
  const dir = tempDir("hcp-watch-pids-");
  const root = programPack("sibling", CLONE_PARENT, { sibling: [join(dir, "sibling.pid"), maker] }, { marked: maker === "daemon" });
  await runLeavesNoSurvivor(root, "sibling", dir);
}

test("a process the child makes with clone(CLONE_PARENT), its parent then hcp itself, in a session of its own, is killed", (t) => siblingLeavesNoSurvivor(t, "child"));

test("a process a double-forked daemon of the run makes with clone(CLONE_PARENT) (its parent then init), in a session of its own, TERM ignored, is killed: found by the run's mark", (t) =>
  siblingLeavesNoSurvivor(t, "daemon"));

/** A program that leaves an orphan in a group of its own but in the child's session, with no pipe of the run. */
const SESSION_ORPHAN = script(`exec python3 -c '
import os, signal, sys, time
pidfile = sys.argv[1]
if os.fork() == 0:
    os.setpgid(0, 0)
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        open(pidfile + ".tmp", "w").write(str(os.getpid()))
        os.rename(pidfile + ".tmp", pidfile)
        time.sleep(120)
    os._exit(0)
while not os.path.exists(pidfile):
    time.sleep(0.01)
' "$1"`);

test("an orphan left in a group of its own but in the child's session (its parent gone, no pipe of the run, TERM ignored) is found by the session and killed", async () => {
  // Neither the run's group nor its tree nor its pipes lead to it: only the child's session does, which the watch
  // follows without reading the child's /proc stat (a child spawned detached leads a session whose id is its pid).
  const dir = tempDir("hcp-watch-pids-");
  const root = programPack("orphan", SESSION_ORPHAN, { orphan: [join(dir, "orphan.pid")] });
  await runLeavesNoSurvivor(root, "orphan", dir);
});

test("hcp exec with stdin: a setsid escapee keeping only the child's stdin pipe (a double fork gone at once) is found by that pipe at the timeout and killed", async () => {
  // The child's stdin is a pipe of the run only when stdin is given (else /dev/null, which the watch does not read).
  // A background command's stdin is /dev/null unless redirected from a copy made before (fd 3). The program outlives
  // its escapee's start, then runs into the timeout.
  const dir = tempDir("hcp-watch-pids-");
  const prog = script(`exec 3<&0
( setsid sh -c 'trap "" TERM; echo $$ > "$0.tmp"; mv "$0.tmp" "$0"; exec sleep 120' "$1" <&3 3<&- >/dev/null 2>&1 & )
exec 3<&-
while [ ! -s "$1" ]; do sleep 0.01; done
sleep 60`);
  const root = programPack("stdin", prog, { keep: [join(dir, "stdin.pid")] });
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "stdin", verbs: { keep: { policy: "read", timeout_ms: 5000 } } }));
  const line = JSON.stringify({ id: 1, pack: "stdin", verb: "keep", stdin: "held\n" }) + "\n";
  const r = await hcp(["exec", root], { env: isolatedEnv(), stdin: line, timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /"timed_out":true/, r.stdout + r.stderr);
  await noSurvivor(pidsIn(dir), "hcp exec with stdin");
});

test("without /proc (an empty one mounted over it), a member the child left in its group (SIGTERM ignored) is killed through the group", async (t) => {
  // The watch sees nothing then, so it can never tell the group empty: the group is signalled as before.
  if (spawnSync("unshare", ["-Urm", "sh", "-c", "mount -t tmpfs none /proc"]).status !== 0) {
    t.skip("this kernel does not let this user make a user and mount namespace");
    return;
  }
  const dir = tempDir("hcp-watch-pids-");
  const member = `sh -c 'trap "" TERM; echo $$ > "$0.tmp"; mv "$0.tmp" "$0"; exec sleep 120' "$1" </dev/null >/dev/null 2>&1 &`;
  const root = programPack("noproc", script(`${member}\nwhile [ ! -s "$1" ]; do sleep 0.01; done`), { leave: [join(dir, "member.pid")] });
  const hidden = ["-Urm", "sh", "-c", 'mount -t tmpfs none /proc && exec "$@"', "sh"];
  const env = isolatedEnv();
  trustBeforeRunSync(HCP, ["run", root], { env });
  const r = spawnSync("unshare", [...hidden, process.execPath, HCP, "run", root, "leave"], { env, encoding: "utf8", timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  await noSurvivor(pidsIn(dir), "hcp run without /proc");
});

/**
 * Processes that keep every CPU busy until stopped, six a CPU (with fewer, the escapees the watch used to miss did not
 * show here). On a busy machine each fork is slow: hcp spends long starting a burst of runs while the poll waits, and a
 * fork can stay long between taking its id and being listed in /proc. The watch before missed escapees of both.
 */
function busyCPUs(): () => void {
  const hogs = Array.from({ length: Math.min(64, 6 * availableParallelism()) }, () => spawn(process.execPath, ["-e", "for (;;);"], { stdio: "ignore" }));
  return () => {
    for (const hog of hogs) hog.kill("SIGKILL");
  };
}

/** Calls the tools named, all at once, over MCP on a busy machine (busyCPUs); asserts each was answered without error. */
async function callsAtOnceOnBusyMachine(root: string, tools: string[]): Promise<void> {
  const { client, stderr } = await mcpClient([root], { env: isolatedEnv() });
  const stopBusy = busyCPUs();
  try {
    const results = await Promise.all(tools.map((name) => client.callTool({ name, arguments: {} })));
    assert.equal(results.filter((res) => res.isError !== true).length, tools.length, stderr());
  } finally {
    stopBusy();
    await client.close();
  }
}

test("hcp serve --mcp: 64 calls at once on a busy machine, each leaving a setsid escapee with no pipe of its run, leave no survivor", async () => {
  const dir = tempDir("hcp-watch-pids-");
  // As hcp runs it, with the run's mark: an escapee that loses its parent between two readings of the tree on this busy
  // machine is found by the mark alone (a limit of the tree's that SECURITY.md states).
  const root = programPack("burst", script(`${SLEEPER} "$1/esc-$$.pid" </dev/null >/dev/null 2>&1 &\nsleep 1`), { leave: [dir] }, { marked: true });
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "burst", verbs: { leave: "read" }, limits: { concurrency: 64 } }));
  await callsAtOnceOnBusyMachine(root, Array<string>(64).fill("burst_leave"));
  await noSurvivor(pidsIn(dir), "hcp serve --mcp");
});

test("hcp serve --mcp: 48 calls at once on a busy machine, each child double-forking an escapee that keeps the run's pipes (its parent gone at once, a session of its own), leave no survivor", async () => {
  const dir = tempDir("hcp-watch-pids-");
  // Only the run's pipes, which it keeps, lead to the escapee once its parent has exited. The child stays a second:
  // one that exits before hcp has looked at its pipes (a race hcp can lose on a busy machine) is a limit SECURITY.md
  // states.
  const root = programPack("quick", script(`( ${SLEEPER} "$1/esc-$$.pid" & )\nwhile [ ! -s "$1/esc-$$.pid" ]; do sleep 0.01; done\nsleep 1`), { leave: [dir] });
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "quick", verbs: { leave: "read" }, limits: { concurrency: 64 } }));
  await callsAtOnceOnBusyMachine(root, Array<string>(48).fill("quick_leave"));
  const pids = pidsIn(dir);
  assert.equal(pids.length, 48, "every escapee ran before its child exited");
  await noSurvivor(pids, "hcp serve --mcp");
});

test("hcp serve --mcp: malformed tools/call params (no name, a number for a name, arguments not an object, task fields, bad _meta) are JSON-RPC errors and nothing runs", async () => {
  const root = tempDir("hcp-watch-mcp-");
  const log = join(root, "witness.log");
  witnessPack(root, "w", log);
  const { client, stderr } = await mcpClient([root], { env: isolatedEnv() });
  try {
    const attacks: Record<string, unknown>[] = [
      {},
      { name: 42 },
      { name: null, arguments: {} },
      { name: "w_work", arguments: [] },
      { name: "w_work", arguments: "{}" },
      { name: "w_work", arguments: 1 },
      { name: "w_work", arguments: null },
      { name: "w_work", arguments: {}, task: { ttl: 60_000 } },
      { name: "w_work", arguments: {}, task: {} },
      { name: "w_work", arguments: {}, task: "yes" },
      { name: "w_work", arguments: {}, task: null },
      { name: "w_work", arguments: {}, task: { ttl: "soon" } },
      { name: "w_work", arguments: {}, task: { ttl: 60_000 }, _meta: { progressToken: {} } },
      { name: "w_work", arguments: {}, _meta: "x" },
      { name: "w_work", arguments: {}, _meta: { progressToken: [] } },
    ];
    for (const params of attacks) {
      const error = await client.request({ method: "tools/call", params: params as { name: string } }, CallToolResultSchema).then(
        (result) => assert.fail(`${JSON.stringify(params)} was answered: ${JSON.stringify(result)}`),
        (err: unknown) => err,
      );
      assert.ok(error instanceof McpError, `${JSON.stringify(params)}: a JSON-RPC error, got ${String(error)}`);
      // -32602 for params that fail the schema, -32600 for a _meta no request may have; a task is refused by the SDK's
      // Protocol before any handler as -32603 "does not support task creation".
      assert.ok([-32600, -32602, -32603].includes(error.code), `${JSON.stringify(params)}: ${error.code} ${error.message}`);
      assert.ok(!/\n\s+at /.test(error.message), `${JSON.stringify(params)}: no stack trace: ${error.message}`);
      assert.equal(existsSync(log), false, `${JSON.stringify(params)} ran the program`);
    }
    // The witness is real, and the server goes on: a plain call runs once.
    const ok = await client.callTool({ name: "w_work", arguments: {} });
    assert.notEqual(ok.isError, true, JSON.stringify(ok) + stderr());
    assert.equal(marks(log), 2);
  } finally {
    await client.close();
  }
});

/**
 * A program that leaves a TERM-ignoring process in the child's own group (no setsid, every fd /dev/null, so neither
 * a session of its own nor a pipe leads to it) and exits at once: `fork`, `spawn` (posix_spawn) or `thread` (a
 * thread of the child forks it). Only the group kill, or the watch's log of the tree, finds it.
 */
const GROUP_MEMBER = script(`exec python3 -c '
import os, signal, sys, threading, time
mode, pidfile = sys.argv[1], sys.argv[2]
member = "import os, signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); f = os.path.join(sys.argv[1], str(os.getpid())); open(f, \\"w\\").write(str(os.getpid())); os.rename(f, f + \\".pid\\"); time.sleep(120)"
null = os.open(os.devnull, os.O_RDWR)
def start():
    if mode == "spawn":
        pids.append(os.posix_spawn(sys.executable, [sys.executable, "-c", member, pidfile], os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]))
        return
    pid = os.fork()
    if pid == 0:
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.execv(sys.executable, [sys.executable, "-c", member, pidfile])
    pids.append(pid)
    return pid
pids = []
if mode == "thread":
    t = threading.Thread(target=start); t.start(); t.join()
else:
    start()
# The member runs with SIGTERM ignored before the child exits.
while not os.path.exists(os.path.join(pidfile, str(pids[-1] if pids else 0) + ".pid")):
    time.sleep(0.005)
os._exit(0)
' "$@"`);

test("hcp serve --mcp: 48 calls at once on a busy machine, each child leaving a TERM-ignoring member in its own group (fork, posix_spawn, a thread's fork) and exiting at once, leave no survivor", async () => {
  const dir = tempDir("hcp-watch-pids-");
  const modes = ["fork", "spawn", "thread"];
  const root = programPack("member", GROUP_MEMBER, Object.fromEntries(modes.map((m) => [m, [m, dir]])));
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "member", verbs: Object.fromEntries(modes.map((m) => [m, "read"])), limits: { concurrency: 64 } }));
  await callsAtOnceOnBusyMachine(root, Array.from({ length: 48 }, (_, i) => `member_${modes[i % 3]}`));
  const pids = pidsIn(dir);
  assert.equal(pids.length, 48, "every member ran before its child exited");
  await noSurvivor(pids, "hcp serve --mcp");
});

