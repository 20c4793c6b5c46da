// The yardstick of the `startup` bench section: the smallest stdio server the official MCP SDK
// makes (one tool with a zod schema), run with plain node like the built dist/main.js.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "bare-sdk-server", version: "1.0.0" });
server.registerTool(
  "echo",
  { description: "Returns its text.", inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: "text", text }] }),
);
await server.connect(new StdioServerTransport());
process.stdin.once("end", () => process.exit(0));
