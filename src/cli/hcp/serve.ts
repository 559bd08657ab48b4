// `hcp exec` and `hcp serve --mcp`: the long-running transports on this process's stdin and stdout.

import { TransportError } from "../../transports/errors.js";
import { serveExec } from "../../transports/exec.js";
import { loadServed, type ServeOptions } from "../../transports/packs.js";
import { PACKAGE_VERSION } from "../version.js";

export async function execCommand(paths: string[], opts: ServeOptions & { concurrency?: string }): Promise<number> {
  const concurrency = opts.concurrency === undefined ? 8 : Number(opts.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1024) {
    throw new TransportError("usage", `--concurrency must be an integer from 1 to 1024, got ${JSON.stringify(opts.concurrency)}`);
  }
  const packs = loadServed(paths, "json_exec", opts);
  const stop = new AbortController();
  const abort = () => stop.abort();
  process.once("SIGINT", abort).once("SIGTERM", abort);
  await serveExec(packs, process.stdin, process.stdout, { ...opts, concurrency, signal: stop.signal });
  return 0;
}

export async function serveCommand(paths: string[], opts: ServeOptions & { mcp?: boolean }): Promise<number> {
  if (!opts.mcp) throw new TransportError("usage", "hcp serve needs a transport: --mcp (the stdio MCP server)");
  // Start loading the SDK first: its file reads overlap the packs' loading.
  const mcp = import("../../transports/mcp.js");
  mcp.catch(() => {});
  const packs = loadServed(paths, "mcp", opts);
  const { serveMcp } = await mcp;
  await serveMcp(packs, { ...opts, version: PACKAGE_VERSION });
  return 0;
}
