/**
 * A request that waited in the NCBI queue is logged to the session whose call sent it, not to the
 * session whose request freed the slot (p-queue starts the next task from the previous one's
 * continuation; the limiter binds each task to its caller's async context).
 */
import { afterAll, beforeAll, expect, it, jest } from "@jest/globals";
import { log } from "../../src/log.js";
import { onUtility, startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { startHarness, type Harness } from "../helpers/mcp.js";
import { connectSession, settle, waitFor, type Session } from "./sessions.js";

jest.setTimeout(60_000);

const ESPELL = (term: string) =>
  `<eSpellResult><Database>pubmed</Database><Query>${term}</Query><CorrectedQuery>${term}</CorrectedQuery><SpelledQuery/><ERROR/></eSpellResult>`;

let fake: FakeEutils;
let h: Harness;
beforeAll(async () => {
  fake = await startFakeEutils({
    routes: [onUtility("espell", (req) => ({ body: ESPELL(req.params.term ?? ""), delayMs: 200 }))],
  });
  // One request at a time: the second session's call must wait in the queue for the first's.
  h = await startHarness({ fake, env: { NCBI_MAX_RPS: "1" } });
  for (const t of log.transports) t.silent = true;
});
afterAll(async () => {
  for (const t of log.transports) t.silent = false;
  await h.close();
  await fake.close();
});

const requestLines = (s: Session) =>
  s.messages
    .map((m) => m.data as { message: string; url?: string })
    .filter((d) => d.message === "ncbi request")
    .map((d) => new URL(d.url ?? "", "http://x").searchParams.get("term"));

it("credits each queued NCBI request's log line to the session that made the call", async () => {
  const [first, second] = [await connectSession(), await connectSession()];
  try {
    await first.client.setLoggingLevel("debug");
    await second.client.setLoggingLevel("debug");
    const calls = [
      first.client.callTool({ name: "pubmed_spell", arguments: { query: "firstterm" } }),
      second.client.callTool({ name: "pubmed_spell", arguments: { query: "secondterm" } }),
    ];
    const results = await Promise.all(calls);
    expect(results.map((r) => r.isError === true)).toEqual([false, false]);
    await waitFor(() => requestLines(second).length > 0, "the second session's request line");
    await settle();
    expect(requestLines(first)).toEqual(["firstterm"]);
    expect(requestLines(second)).toEqual(["secondterm"]);
  } finally {
    await Promise.all([first.close(), second.close()]);
  }
});
