/**
 * Toolsets: the families an operator switches on with MCP_TOOLSETS (docs/configuration.md). Every
 * tool names its own (`toolset` on ToolDef, required); the corpus resources name theirs too. No
 * imports, so config.ts can validate the names without loading the tool registry.
 */

/** In the order docs and messages list them. */
export const TOOLSETS = ["live", "reading", "corpus", "review", "trust"] as const;

export type Toolset = (typeof TOOLSETS)[number];

export const isToolset = (name: string): name is Toolset =>
  (TOOLSETS as readonly string[]).includes(name);
