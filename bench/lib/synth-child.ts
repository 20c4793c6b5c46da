/**
 * The synthetic NCBI in a process of its own, so that generating EFetch replies (thousands of
 * records) does not load the event loop of the server under test; every record is rendered
 * before it listens, so during a run it does not take a core from that server either (NCBI's
 * CPU is not on the user's machine). Argument: the
 * SynthCorpusOptions as JSON (dates as ISO strings). Prints {"baseUrl", "pmids"} (the first
 * 200 PMIDs of each term, in term order) as its first stdout line.
 */
import { createSynthCorpus, type SynthCorpusOptions } from "../../src/devtools/synth.js";
import { startSynthServer } from "../../src/devtools/synth-server.js";

const spec = JSON.parse(process.argv[2] ?? "{}") as SynthCorpusOptions;
const corpus = createSynthCorpus(spec);
const server = await startSynthServer(corpus, { prerender: true });
const pmids = Object.fromEntries(
  spec.terms.map((t) => [t.term, corpus.pmidsFor(t.term).slice(0, 200)]),
);
process.stdout.write(`${JSON.stringify({ baseUrl: server.baseUrl, pmids })}\n`);
process.once("SIGTERM", () => void server.close().finally(() => process.exit(0)));
