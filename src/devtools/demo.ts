#!/usr/bin/env node
/**
 * Offline demo: a synthetic NCBI (project-generated records) on loopback, and the real
 * pubmed-mcp pointed at it in a child process — over HTTP by default, or over stdio with
 * --stdio (for an agent's configuration: `node dist/devtools/demo.js --stdio`).
 * Nothing but the child's JSON-RPC reaches stdout in stdio mode; notes go to stderr.
 * --review plays a reviewer screening the demo's labelled review, then exits (./demo-review.ts).
 *
 * The corpus is throw-away: each run keeps its embedded store in a fresh temporary folder, removed
 * when the demo stops, so every run starts empty (a `pubmed_sync_delta` inserts every record
 * again). With PUBMED_MCP_DATA_DIR set, the store is that folder instead, and it stays.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../config.js";
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

/** A word as a POSIX shell reads it back: quoted unless it is plainly safe. */
const shellWord = (word: string) =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;

const stdio = process.argv.includes("--stdio");
const corpus = demoCorpus({ review: true });
const ncbi = await startSynthServer(corpus);
const port = process.env.MCP_HTTP_PORT ?? "3000";
const ownDir = process.env.PUBMED_MCP_DATA_DIR || undefined; // empty counts as unset, as in config.ts
// This run's folder: the server's store, and a data directory for the CLI (below).
const runDir = ownDir === undefined ? mkdtempSync(join(tmpdir(), "pubmed-mcp-demo-")) : undefined;
const dataDir = ownDir ?? join(runDir ?? "", "store");
const env = {
  ...process.env,
  NCBI_EUTILS_BASE_URL: ncbi.baseUrl,
  // The literature services are synthetic too (same port); Unpaywall needs an address to answer.
  ...ncbi.env,
  UNPAYWALL_EMAIL: process.env.UNPAYWALL_EMAIL ?? "demo@example.org",
  PUBMED_MCP_DATA_DIR: dataDir,
  MCP_TRANSPORT: stdio ? "stdio" : "http",
  MCP_HTTP_PORT: port,
};
const removeRunDir = () => {
  if (runDir !== undefined) rmSync(runDir, { recursive: true, force: true });
};
process.once("exit", removeRunDir);

const note = (text: string) => process.stderr.write(`${text}\n`);
note(
  `demo: synthetic NCBI at ${ncbi.baseUrl} with the queries ${DEMO_TERMS.map((t) => `"${t.term}"`).join(", ")}`,
);
note(
  runDir === undefined
    ? `demo: corpus in ${dataDir} (PUBMED_MCP_DATA_DIR; it stays after the demo)`
    : `demo: throw-away corpus in ${dataDir}: this run's alone, removed when the demo stops`,
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
// The command line reaches the same synthetic NCBI while the demo runs. It needs a data directory
// of its own: the server holds its store's lock. Without PUBMED_MCP_DATA_DIR the CLI would write
// into the user's own corpus (config.ts's default, computed here by the same code).
const cliEnv = [
  `NCBI_EUTILS_BASE_URL=${shellWord(ncbi.baseUrl)}`,
  `PUBMED_MCP_DATA_DIR=${shellWord(runDir === undefined ? "<a folder of your own>" : join(runDir, "cli"))}`,
].join(" ");
const cli = ["node", ...serverArgs()].map(shellWord).join(" ");
const userStore = loadConfig({ XDG_DATA_HOME: process.env.XDG_DATA_HOME }).dataDir;
note("demo: the pubmed-mcp command line against this synthetic NCBI, while the demo runs:");
note(`      ${cliEnv} ${cli} sync --query-key lc --term 'long covid'`);
note(`      ${cliEnv} ${cli} search 'long covid'`);
note(
  `      Keep PUBMED_MCP_DATA_DIR: without it the CLI writes into ${userStore}, your own corpus` +
    (runDir === undefined ? "." : "; this one goes with the demo's folder."),
);

const child = spawn(process.execPath, serverArgs(), { env, stdio: "inherit" });
const stop = () => child.kill("SIGTERM");
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
child.on("exit", async (code) => {
  await ncbi.close();
  process.exit(code ?? 0); // the "exit" listener removes this run's folder
});
