/**
 * The E-utilities client's settings for tests that build an EutilsClient directly: pointed at a
 * fake NCBI, fast, no response cache unless a test asks for one.
 */
import type { Config } from "../../src/config.js";

export function ncbiConfig(baseUrl: string, over: Partial<Config["ncbi"]> = {}): Config["ncbi"] {
  return {
    baseUrl,
    apiKey: undefined,
    tool: "pubmed-mcp-test",
    email: undefined,
    maxRps: 50,
    maxRetries: 3,
    timeoutMs: 5000,
    deadlineMs: 20_000,
    cacheTtlSeconds: 0,
    cacheMaxBytes: 1 << 20,
    ...over,
  };
}
