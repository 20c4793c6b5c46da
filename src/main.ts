#!/usr/bin/env node
/**
 * Entry point. Start-up is prepared (Node's compile cache, fastmcp's unused mcp-proxy deferred:
 * src/startup) before any other module of the server is loaded, so that every module after this
 * one, the logger and configuration included, is read from the compile cache on later starts.
 * The command line itself is src/run.ts.
 */
import { prepareStartup } from "./startup/index.js";

prepareStartup();
await import("./run.js");
