// A private Secret Service for the keyring tests: gnome-keyring in its own D-Bus session (dbus-run-session),
// with a login keyring in a temporary home. Nothing of the user's own session is touched.

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../transports/support.js";

export interface KeyringSession {
  /** Variables that put a spawned process in this session. */
  env: NodeJS.ProcessEnv;
  stop(): void;
}

/** Why no session can be had here, or undefined when the tools are installed. */
export function keyringUnavailable(): string | undefined {
  for (const tool of ["dbus-run-session", "gnome-keyring-daemon"]) {
    if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) return `${tool} is not installed (apt-get install gnome-keyring dbus)`;
  }
  return undefined;
}

// Unlocks (creating) the login keyring with a throwaway password, starts the secrets component,
// prints the session bus address, then waits: the session lasts as long as this script.
const SCRIPT = `
printf 'hcp-test' | gnome-keyring-daemon --daemonize --login --components=secrets >/dev/null 2>&1
eval "$(gnome-keyring-daemon --start --components=secrets 2>/dev/null)"
echo "BUS=$DBUS_SESSION_BUS_ADDRESS"
exec sleep 600
`;

/** Starts the session; resolves once its bus address is known. */
export function startKeyringSession(): Promise<KeyringSession> {
  const home = tempDir("hcp-keyring-home-");
  const runtime = join(home, "run");
  mkdirSync(runtime, { mode: 0o700 });
  const base = { ...process.env, HOME: home, XDG_DATA_HOME: join(home, "data"), XDG_RUNTIME_DIR: runtime };
  const child: ChildProcess = spawn("dbus-run-session", ["--", "sh", "-c", SCRIPT], { env: base, detached: true, stdio: ["ignore", "pipe", "ignore"] });
  const stop = () => {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      // already gone
    }
  };
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      stop();
      reject(new Error("the keyring session did not start within 30 s"));
    }, 30_000);
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString("utf8");
      const bus = /BUS=(\S+)/.exec(out)?.[1];
      if (bus === undefined) return;
      clearTimeout(timer);
      resolve({ env: { ...base, DBUS_SESSION_BUS_ADDRESS: bus }, stop });
    });
    child.on("exit", () => {
      clearTimeout(timer);
      reject(new Error(`the keyring session ended before it started: ${out}`));
    });
  });
}
