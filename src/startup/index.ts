/**
 * What the entry point does before it imports the server, so that a process start costs less
 * (issue 11 item 7: a stdio server's first `initialize` reply and idle RSS):
 *
 * - Node's on-disk compile cache (as npm and tsc use), in this thread and the worker threads:
 *   later starts reuse the V8 code of the modules compiled before, in
 *   `$TMPDIR/node-compile-cache` (or `NODE_COMPILE_CACHE`; none with
 *   `NODE_DISABLE_COMPILE_CACHE=1`). A cache that cannot be written is skipped silently.
 * - fastmcp imports mcp-proxy (700 KB of bundle plus a second copy of the MCP SDK: about a
 *   quarter of start-up CPU and 25 MB of RSS) only for `FastMCP.start`'s HTTP server, which this
 *   project never calls: its own HTTP server (src/http) hosts fastmcp sessions. fastmcp's import
 *   of it resolves to a forwarder that loads the real module on the first call instead.
 *
 * Guarded by __tests__/startup/lazy-modules.test.ts (what a stdio start loads) and the stdio,
 * HTTP and inspector tests (that sessions still work).
 */
import module from "node:module";

/** The names fastmcp imports from mcp-proxy, each forwarded to the real module on first call. */
const MCP_PROXY_FUNCTIONS = ["startHTTPServer"];

function forwarder(realUrl: string, names: readonly string[]): string {
  const real = JSON.stringify(realUrl);
  const exports = names.map(
    (name) =>
      `export async function ${name}(...args) { return (await import(${real})).${name}(...args); }`,
  );
  return `data:text/javascript,${encodeURIComponent(exports.join("\n"))}`;
}

function deferMcpProxy(): void {
  // module.registerHooks exists from Node 22.15; on older 22.x fastmcp loads mcp-proxy as usual.
  if (typeof module.registerHooks !== "function") return;
  module.registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      if (specifier !== "mcp-proxy" || !context.parentURL?.includes("/node_modules/fastmcp/"))
        return resolved;
      return {
        url: forwarder(resolved.url, MCP_PROXY_FUNCTIONS),
        format: "module",
        shortCircuit: true,
      };
    },
  });
}

/**
 * Enables the compile cache in this thread and, through NODE_COMPILE_CACHE (which a worker thread
 * reads as it starts), in the threads it starts: the corpus worker loads most of the server's code
 * (the stores, PGlite's JavaScript, sync, search) and `enableCompileCache` covers only its caller.
 */
function enableCompileCache(): void {
  const { directory } = module.enableCompileCache?.() ?? {};
  if (directory !== undefined) process.env.NODE_COMPILE_CACHE ??= directory;
}

export function prepareStartup(): void {
  enableCompileCache();
  deferMcpProxy();
}
