#!/usr/bin/env node
/**
 * Offline demo: a synthetic NCBI (project-generated records) on loopback, and the real
 * pubmed-mcp pointed at it in a child process — over HTTP by default, or over stdio with
 * --stdio (for an agent's configuration: `node dist/devtools/demo.js --stdio`).
 * Nothing but the child's JSON-RPC reaches stdout in stdio mode; notes go to stderr.
 * --review plays a reviewer screening the demo's labelled review, then exits (./demo-review.ts).
 */
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REVIEW_TERM, runReviewWalkthrough, serverArgs } from "./demo-review.js";
import { synthReference } from "./reference-styles.js";
import { DEMO_TERMS, demoCorpus } from "./synth-ncbi.js";
import { startSynthServer } from "./synth-server.js";

if (process.argv.includes("--review")) {
  try {
    await runReviewWalkthrough({ env: process.env });
    process.exit(0);
  } catch (err) {
    process.stderr.write(`demo --review: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}

const stdio = process.argv.includes("--stdio");
const corpus = demoCorpus({ review: true });
const ncbi = await startSynthServer(corpus);
const port = process.env.MCP_HTTP_PORT ?? "3000";
const env = {
  ...process.env,
  NCBI_EUTILS_BASE_URL: ncbi.baseUrl,
  // The literature services are synthetic too (same port); Unpaywall needs an address to answer.
  ...ncbi.env,
  UNPAYWALL_EMAIL: process.env.UNPAYWALL_EMAIL ?? "demo@example.org",
  PUBMED_MCP_DATA_DIR: process.env.PUBMED_MCP_DATA_DIR ?? join(tmpdir(), "pubmed-mcp-demo"),
  MCP_TRANSPORT: stdio ? "stdio" : "http",
  MCP_HTTP_PORT: port,
};
const note = (text: string) => process.stderr.write(`${text}\n`);
note(
  `demo: synthetic NCBI at ${ncbi.baseUrl} with the queries ${DEMO_TERMS.map((t) => `"${t.term}"`).join(", ")}`,
);
if (!stdio) {
  note(
    `demo: MCP endpoint http://127.0.0.1:${port}/mcp — try pubmed_search {"query": "long covid"},`,
  );
  note(
    `      pubmed_spell {"query": "asthmaa childrn"}, pubmed_sync_delta {"query_key": "lc", "term": "long covid"},`,
  );
  note(
    `      pubmed_verify_references {"references": [${JSON.stringify(synthReference(corpus.recordAt(0)))}]}.`,
  );
}
note(
  `demo: a labelled review searches "${REVIEW_TERM}" (review_create, review_add, review_screen …); ` +
    "watch a reviewer screen it with `npm run demo -- --review`.",
);
const child = spawn(process.execPath, serverArgs(), { env, stdio: "inherit" });
const stop = () => child.kill("SIGTERM");
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
child.on("exit", async (code) => {
  await ncbi.close();
  process.exit(code ?? 0);
});
