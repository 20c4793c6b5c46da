/**
 * The demo's synthetic NCBI (src/devtools: E-utilities and the literature services on one
 * loopback port) in a process of its own, every record rendered before it listens, so that
 * neither the server under test nor the bench's client shares a loop with it. Prints
 * {"baseUrl", "env"} as its first stdout line; SIGTERM ends it, and so does the end of its stdin
 * (the parent gone, however it ended).
 */
import { demoCorpus } from "../../src/devtools/synth-ncbi.js";
import { startSynthServer } from "../../src/devtools/synth-server.js";

const server = await startSynthServer(demoCorpus(), { prerender: true });
process.stdout.write(`${JSON.stringify({ baseUrl: server.baseUrl, env: server.env })}\n`);
const stop = () => void server.close().finally(() => process.exit(0));
process.once("SIGTERM", stop);
process.stdin.once("end", stop).resume();
