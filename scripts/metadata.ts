/**
 * The publishing metadata that repeats facts owned elsewhere: the versions in server.json and
 * manifest.json (owned by package.json) and the MCP Bundle's tool list (owned by src/tools).
 * `npm run metadata` rewrites them; __tests__/container/metadata.test.ts fails while they differ.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));

export interface ToolSummary {
  name: string;
  description: string;
}

/** The first sentence of a tool description (a period after "e.g.", "i.e." or "etc." ends none). */
export function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const end = flat.search(/(?<!\b(?:e\.g|i\.e|etc|vs|cf))\.\s/);
  return end === -1 ? flat : flat.slice(0, end + 1);
}

/** What the bundle's manifest lists for each tool: its name and the first sentence of its description. */
export function manifestTools(tools: readonly ToolSummary[]): ToolSummary[] {
  return tools.map((t) => ({ name: t.name, description: firstSentence(t.description) }));
}

export const readJson = <T = Record<string, unknown>>(name: string): T =>
  JSON.parse(readFileSync(join(REPO_ROOT, name), "utf8")) as T;

const writeJson = (name: string, value: unknown) =>
  writeFileSync(join(REPO_ROOT, name), `${JSON.stringify(value, null, 2)}\n`);

// Run as a script (tsx scripts/metadata.ts): rewrite the derived fields in place.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { TOOLS } = await import("../src/tools/index.js");
  const { version } = readJson<{ version: string }>("package.json");
  const manifest = readJson("manifest.json");
  writeJson("manifest.json", { ...manifest, version, tools: manifestTools(TOOLS) });
  const server = readJson<{ packages: Record<string, unknown>[] }>("server.json");
  writeJson("server.json", {
    ...server,
    version,
    packages: server.packages.map((p) => ({ ...p, version })),
  });
  process.stderr.write(
    `manifest.json and server.json updated to ${version}, ${TOOLS.length} tools\n`,
  );
}
