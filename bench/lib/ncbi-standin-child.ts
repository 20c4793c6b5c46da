/**
 * A stand-in NCBI in a process of its own, so that the moment it notes a request's arrival is not
 * skewed by the event loop of the server under test (or of the test's callers). Arrivals are noted
 * in the 'request' event, which node:http emits from the same socket read that completed the
 * request's headers: the earliest a JavaScript server sees a request on a keep-alive connection.
 *
 * Argument: JSON {latencyMs}. Prints {"port": n} as its first stdout line. Any E-utilities path
 * gets a small ESearch reply after latencyMs (jittered ±50 %, as real replies vary);
 * GET /__standin/arrivals returns {arrivals: ms[], connections: n}; POST /__standin/reset clears.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const { latencyMs = 50 } = JSON.parse(process.argv[2] ?? "{}") as { latencyMs?: number };

let arrivals: number[] = [];
let connections = 0;

/** Project-written, shaped like NCBI's eSearchResult; the count varies so replies differ. */
function esearch(n: number): string {
  return `<?xml version="1.0" encoding="UTF-8" ?>
<!DOCTYPE eSearchResult PUBLIC "-//NLM//DTD esearch 20060628//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20060628/esearch.dtd">
<eSearchResult><Count>${n}</Count><RetMax>1</RetMax><RetStart>0</RetStart><IdList>
<Id>31452104</Id>
</IdList><TranslationSet/><QueryTranslation>standin[All Fields]</QueryTranslation></eSearchResult>
`;
}

const server = createServer((req, res) => {
  const at = performance.timeOrigin + performance.now();
  const path = (req.url ?? "/").split("?")[0] ?? "/";
  if (path === "/__standin/arrivals") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ arrivals, connections }));
    return;
  }
  if (path === "/__standin/reset") {
    arrivals = [];
    connections = 0;
    res.writeHead(204).end();
    return;
  }
  arrivals.push(at);
  req.resume();
  const body = esearch(arrivals.length);
  setTimeout(
    () => {
      if (res.destroyed) return;
      res.writeHead(200, { "content-type": "text/xml; charset=UTF-8" });
      res.end(body);
    },
    latencyMs * (0.5 + Math.random()),
  );
});
server.on("connection", () => (connections += 1));
// Long enough that the server under test's pooled connections stay up between its requests.
server.keepAliveTimeout = 30_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on("SIGTERM", () => process.exit(0));
// The parent owns this process: when it goes away (its stdin pipe closes), so does the stand-in.
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
