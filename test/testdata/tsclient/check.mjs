// An MCP client of the TypeScript SDK drives the bridge over streamable
// HTTP: reads, a refused call, a base_navigate preview confirmed twice
// (one motion), its status, a call with a progress token, robot_stop and
// the session's end. It prints one JSON report; the Go test judges it.
// Usage: node check.mjs <mcp url> [bearer token]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token] = process.argv.slice(2);
const wire = [];
const recording = async (input, init) => {
  const res = await fetch(input, init);
  let method = "", tool = "";
  try {
    const msg = JSON.parse(String(init?.body ?? "null"));
    method = msg?.method ?? "";
    tool = msg?.params?.name ?? "";
  } catch {}
  wire.push({ http: init?.method ?? "GET", method, tool, status: res.status, type: res.headers.get("content-type") ?? "" });
  return res;
};
const headers = token ? { Authorization: `Bearer ${token}` } : {};
const client = new Client({ name: "actbridge-ts-check", version: "1" });
const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recording, requestInit: { headers } });
await client.connect(transport);

const report = { wire, calls: {} };
const call = async (key, name, args, opts) => {
  const r = await client.callTool({ name, arguments: args }, undefined, opts);
  report.calls[key] = { isError: r.isError ?? false, structured: r.structuredContent ?? null, text: r.content?.[0]?.text ?? null };
  return r;
};
report.tools = (await client.listTools()).tools.map((t) => t.name);
await call("joints_read", "joints_read", {});
await call("robot_describe", "robot_describe", {});
await call("refused", "joints_read", { bogus: 1 });
const pv = await call("preview", "base_navigate", { x: 0, y: 0, yaw: 0 });
const id = pv.structuredContent?.preview_id;
if (id) {
  const c = await call("confirm", "motion_confirm", { preview_id: id });
  await call("confirm_again", "motion_confirm", { preview_id: id });
  await call("status", "motion_status", { motion_id: c.structuredContent?.motion_id, wait_s: 10 });
}
await call("with_progress", "motions_list", {}, { onprogress: () => {} });
await call("stop", "robot_stop", { reason: "typescript client check" });
await transport.terminateSession();
await client.close();
process.stdout.write(JSON.stringify(report) + "\n");
