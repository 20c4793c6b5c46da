/**
 * What a sync tells clients, through official SDK clients against a synthetic NCBI: progress
 * notifications for a call that asked for them, notifications/resources/updated for the corpus
 * and for a subscribed paper that appeared, only to sessions that subscribed, and completions of
 * the paper template's {pmid} from the synced PMIDs.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { createSynthCorpus, type SynthCorpus } from "../../src/devtools/synth.js";
import { synthHandler } from "../../src/devtools/synth-ncbi.js";
import { startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { startHarness, type Harness } from "../helpers/mcp.js";
import { connectSession, settle, waitFor, type Session } from "./sessions.js";

jest.setTimeout(180_000);

const TERM = "statin myopathy";
const CORPUS = "resource://pubmed/corpus";
const PAPER = { ref: { type: "ref/resource", uri: "resource://pubmed/paper/{pmid}" } } as const;

let synth: SynthCorpus;
let fake: FakeEutils;
let h: Harness;
let pmids: string[];
beforeAll(async () => {
  synth = createSynthCorpus({
    seed: 11,
    now: new Date("2025-06-30T12:00:00Z"),
    terms: [{ term: TERM, count: 130, edatFrom: "2023-01-01", edatTo: "2025-06-20" }],
  });
  fake = await startFakeEutils({ routes: [synthHandler(synth)] });
  h = await startHarness({ fake, env: { NCBI_MAX_RPS: "100" } });
  pmids = [...synth.pmidsFor(TERM)].sort();
});
afterAll(async () => {
  await h.close();
  await fake.close();
});

const paper = (pmid: string) => `resource://pubmed/paper/${pmid}`;
const completePmid = (value: string) =>
  h.client.complete({ ...PAPER, argument: { name: "pmid", value } });

describe("a sync", () => {
  let watcher: Session;
  let bystander: Session;
  let leaver: Session;
  beforeAll(async () => {
    [watcher, bystander, leaver] = [
      await connectSession(),
      await connectSession(),
      await connectSession(),
    ];
  });
  afterAll(async () => {
    await Promise.all([watcher.close(), bystander.close(), leaver.close()]);
  });

  it("completes no PMID while the corpus is empty", async () => {
    expect((await completePmid("")).completion).toEqual({ values: [], hasMore: false });
  });

  it("reports progress and tells subscribers what changed", async () => {
    const first = pmids[0]!;
    expect(await watcher.client.subscribeResource({ uri: CORPUS })).toEqual({});
    await watcher.client.subscribeResource({ uri: paper(first) });
    await watcher.client.subscribeResource({ uri: paper("1") }); // never synced
    await leaver.client.subscribeResource({ uri: CORPUS });
    expect(await leaver.client.unsubscribeResource({ uri: CORPUS })).toEqual({});

    const progress: Progress[] = [];
    const res = await h.client.callTool(
      { name: "pubmed_sync_delta", arguments: { query_key: "statins", term: TERM } },
      undefined,
      { onprogress: (p) => progress.push(p), timeout: 170_000 },
    );
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toMatchObject({ inserted: pmids.length });

    expect(progress.length).toBeGreaterThan(0);
    const done = progress.map((p) => p.progress);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(progress.at(-1)).toMatchObject({ progress: pmids.length, total: pmids.length });

    await waitFor(() => watcher.updated.length >= 2, "two resource updates");
    await settle();
    expect([...watcher.updated].sort()).toEqual([CORPUS, paper(first)].sort());
    expect(bystander.updated).toEqual([]);
    expect(leaver.updated).toEqual([]);
  });

  it("tells corpus subscribers again after a replay, paper subscribers only when it changed", async () => {
    watcher.updated.length = 0;
    const res = await h.client.callTool({
      name: "pubmed_sync_delta",
      arguments: { query_key: "statins", term: TERM },
    });
    expect(res.structuredContent).toMatchObject({ inserted: 0, updated: 0 });
    await waitFor(() => watcher.updated.length >= 1, "the corpus update");
    await settle();
    expect(watcher.updated).toEqual([CORPUS]);
  });

  it("says nothing after a call refused as invalid", async () => {
    watcher.updated.length = 0;
    const res = await h.client.callTool({
      name: "pubmed_sync_delta",
      arguments: { query_key: "", term: TERM },
    });
    expect(res.isError).toBe(true);
    await settle();
    expect(watcher.updated).toEqual([]);
  });
});

describe("completion/complete", () => {
  it("completes the paper template's pmid from the synced PMIDs, at most 100", async () => {
    const all = await completePmid("");
    expect(all.completion.values).toEqual(pmids.slice(0, 100));
    expect(all.completion.hasMore).toBe(true);

    const prefix = pmids[0]!.slice(0, -1);
    const some = await completePmid(prefix);
    const expected = pmids.filter((p) => p.startsWith(prefix));
    expect(some.completion).toEqual({ values: expected, hasMore: false });
    expect(expected.length).toBeGreaterThan(0);

    expect((await completePmid("99999999")).completion.values).toEqual([]);
    expect((await completePmid("abc")).completion.values).toEqual([]);
  });

  it("completes a prompt argument from its values", async () => {
    const res = await h.client.complete({
      ref: { type: "ref/prompt", name: "pico_search" },
      argument: { name: "studyType", value: "c" },
    });
    expect(res.completion).toEqual({ values: ["cohort", "case_control"], hasMore: false });
    const free = await h.client.complete({
      ref: { type: "ref/prompt", name: "pico_search" },
      argument: { name: "population", value: "dia" },
    });
    expect(free.completion.values).toEqual([]);
  });
});
