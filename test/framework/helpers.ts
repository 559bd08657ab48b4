// Test helpers: run an App in-process with captured streams.

import { PassThrough } from "node:stream";
import type { App } from "../../src/framework/index.js";
import { streamLines } from "../../src/framework/choose.js";

/** Go's --template usage in the fixtures, and ours (our template language is not Go's). */
export const GO_TEMPLATE_USAGE = "Render stable JSON output through a Go text/template (commands with machine output)";
export const TS_TEMPLATE_USAGE = "Render stable JSON output through a rungrad template, not Go text/template (commands with machine output)";

export interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runApp(
  app: App,
  argv: string[],
  opts: { env?: Record<string, string>; input?: string; tty?: boolean } = {},
): Promise<Captured> {
  let stdout = "";
  let stderr = "";
  const stdin = new PassThrough();
  if (opts.input !== undefined) stdin.end(opts.input);
  const code = await app.run(argv, {
    stdin,
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
    stdinIsTTY: opts.tty ?? false,
    stdoutIsTTY: false,
    stderrIsTTY: opts.tty ?? false,
    env: opts.env ?? { HOME: "/nonexistent-home" },
    lines: () => streamLines(stdin),
  });
  return { code, stdout, stderr };
}
