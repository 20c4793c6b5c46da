/**
 * The synthetic NCBI in a process of its own, so that generating EFetch replies (thousands of
 * records) does not load the event loop of the server under test. Argument: the
 * SynthCorpusOptions as JSON (dates as ISO strings). Prints {"baseUrl", "pmids"} (the first
 * 200 PMIDs of each term, in term order) as its first stdout line.
 */
import { createSynthCorpus, type SynthCorpusOptions } from "../../src/devtools/synth.js";
import { startSynthServer } from "../../src/devtools/synth-server.js";

const spec = JSON.parse(process.argv[2] ?? "{}") as SynthCorpusOptions;
const corpus = createSynthCorpus(spec);
const server = await startSynthServer(corpus);
const pmids = Object.fromEntries(
  spec.terms.map((t) => [t.term, corpus.pmidsFor(t.term).slice(0, 200)]),
);
process.stdout.write(`${JSON.stringify({ baseUrl: server.baseUrl, pmids })}\n`);
process.once("SIGTERM", () => void server.close().finally(() => process.exit(0)));
