/** Removes the temporary XDG_CACHE_HOME of global-setup.ts. */
import { rmSync } from "node:fs";

export default function globalTeardown(): void {
  const dir = process.env.XDG_CACHE_HOME;
  if (dir?.includes("pubmed-mcp-test-cache-")) rmSync(dir, { recursive: true, force: true });
}
