/**
 * The term-change warning quotes the key's earlier term cut to 100 characters. Cut inside an
 * emoji, it held half a surrogate pair, which the job row's JSON refused: the sync failed STORE
 * and its job stayed `running` (issue 45, finding 4). Through a real MCP client on both backends,
 * against the synthetic NCBI.
 */
import { beforeEach, expect, it, jest } from "@jest/globals";
import { listJobs } from "../../src/store/jobs.js";
import { corpusDb } from "../helpers/corpus-db.js";
import type { SyncOut } from "../helpers/corpus.js";
import { useCorpusServer } from "../helpers/corpus-server.js";
import { describeEachBackend } from "../helpers/db.js";
import { callTool, type Harness } from "../helpers/mcp.js";
import { useSynthNcbi } from "../helpers/synth-ncbi.js";

jest.setTimeout(120_000);

const TERM = "statin myopathy";

describeEachBackend("the term-change warning", (kind) => {
  const ncbi = useSynthNcbi({
    seed: 11,
    now: new Date("2025-06-30T12:00:00Z"),
    terms: [{ term: TERM, count: 20, edatFrom: "2024-01-01", edatTo: "2025-06-20" }],
  });
  const server = useCorpusServer(kind, ncbi);
  let h: Harness;
  beforeEach(async () => {
    h = await server.open();
  });

  it("cuts the earlier term between characters, stores the warning and closes the job", async () => {
    // 98 letters, then an emoji on code units 98–99: the 100-character cut (99 and "…") falls
    // inside it.
    const earlier = `${"a".repeat(98)}😀 statin`;
    const first = await callTool(h.client, "pubmed_sync_delta", { query_key: "k", term: earlier });
    expect(first.isError).toBe(false);

    const second = await callTool(h.client, "pubmed_sync_delta", { query_key: "k", term: TERM });
    expect(second.isError).toBe(false);
    const out = second.json as SyncOut;
    expect(out.warnings[0]).toBe(
      `query_key "k" was last synced with the term "${"a".repeat(98)}…", which matched nothing; ` +
        "this call's term is searched from the beginning.",
    );
    expect(out.pmids_processed).toBe(ncbi.corpus.pmidsFor(TERM).length);

    const jobs = await listJobs(corpusDb, { queryKey: "k" });
    expect(jobs.map((j) => j.status)).toEqual(["succeeded", "succeeded"]);
    expect(jobs[0]?.warnings).toEqual(out.warnings);
    const cp = await callTool(h.client, "corpus_checkpoint_get", { query_key: "k" });
    expect(cp.json).toMatchObject({ last_sync: { job_id: out.job_id, status: "succeeded" } });
  });
});
