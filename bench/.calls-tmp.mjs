import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
const dir = process.argv[2];
const client = new Client({ name: "bench", version: "1" });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [...(process.argv[3] ? ["--cpu-prof", "--cpu-prof-dir=/tmp/prof3"] : []), `${dir}/dist/src/cli/hcp.js`, "serve", "--mcp", "/work/main/test/fixtures/packs/hcp-probe"], env: process.env }));
const ts = [];
for (let i = 0; i < 60; i++) { const t0 = performance.now(); const r = await client.callTool({ name: "hcp-probe_quick", arguments: {} }); ts.push(performance.now() - t0); if (r.isError) throw new Error("x"); }
await client.close();
ts.sort((a, b) => a - b); console.log(dir, "p50", ts[30].toFixed(2));
