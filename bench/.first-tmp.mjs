import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
const res = {};
for (let r = 0; r < 9; r++) for (const dir of process.argv.slice(2)) {
  const client = new Client({ name: "bench", version: "1" });
  const t0 = performance.now();
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [`${dir}/dist/src/cli/hcp.js`, "serve", "--mcp", "/work/main/test/fixtures/packs/hcp-probe"], env: process.env }));
  const tc = performance.now() - t0;
  await client.listTools();
  const tl = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 1500));
  const t1 = performance.now();
  await client.callTool({ name: "hcp-probe_echo", arguments: { message: "x", count: 1 } });
  const first = performance.now() - t1;
  const t2 = performance.now();
  await client.callTool({ name: "hcp-probe_echo", arguments: { message: "y", count: 2 } });
  const second = performance.now() - t2;
  await client.close();
  (res[dir] ??= []).push([tc, tl, first, second]);
}
for (const [d, rows] of Object.entries(res)) { const med = (i) => rows.map((x) => x[i]).sort((a, b) => a - b)[4].toFixed(1); console.log(d, "connect", med(0), "tools/list done", med(1), "first call", med(2), "second", med(3)); }
