/**
 * The layering of src/ (docs/architecture.md): each part may import the parts listed before it,
 * never one listed after it, and no module may import itself back through others. Checked by
 * `npm run lint` (depcruise).
 */
const LAYERS = [
  // The ground: configuration, errors, logging, threads; they import no other part.
  [
    "errors",
    "log",
    "sleep",
    "version",
    "excerpt",
    "toolsets",
    "config-http",
    "config",
    "threads",
    "types",
    "paging",
  ],
  // Talking to the outside: the polite HTTP client, limiter, shared NCBI budget, cache, channels.
  ["net"],
  // Tokenizer, stemmer, BM25, rank fusion, bounded heaps.
  ["retrieval"],
  // One façade per upstream service.
  ["ncbi"],
  // JATS full text (PMC's and Europe PMC's), read here or in the live thread.
  ["jats"],
  ["europepmc"],
  ["unpaywall"],
  ["pubtator"],
  ["crossref"],
  // Where things are kept.
  ["store"],
  ["embeddings"],
  ["vectors"],
  // Configuration and clients, once per process.
  ["state"],
  // What the tools do.
  ["literature"],
  ["live"],
  ["trust"],
  ["pubmed"],
  ["corpus"],
  ["review"],
  ["worker"],
  // The MCP surface and how it is served.
  ["tools"],
  ["prompts"],
  ["resources"],
  ["protocol"],
  ["server"],
  ["http"],
  ["cli"],
  ["run"],
  ["startup"],
  ["main"],
  // Development tools (demo, synthetic NCBI): not shipped; may import anything.
  ["devtools"],
];

/** A regular expression matching the modules of the given parts (folders or single files). */
const modulesOf = (parts) => `^src/(${parts.join("|")})(/|\\.ts$)`;

const layering = LAYERS.slice(0, -1).map((parts, i) => ({
  name: `layer-${parts[0]}`,
  comment: `${parts.join(", ")} may only import the parts listed before them in .dependency-cruiser.cjs`,
  severity: "error",
  from: { path: modulesOf(parts) },
  to: { path: modulesOf(LAYERS.slice(i + 1).flat()) },
}));

// Parts sharing a layer (the ground) must not import each other in both directions either:
// no-circular below catches that, module by module.
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No module may import itself back through others (type-only imports included).",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-unknown-part",
      comment: "Every part of src/ has a place in LAYERS (.dependency-cruiser.cjs).",
      severity: "error",
      from: { path: "^src/", pathNot: modulesOf(LAYERS.flat()) },
      to: {},
    },
    ...layering,
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^src/types/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
