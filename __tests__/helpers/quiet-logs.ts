// Tests exercise failures on purpose; keep the expected warnings out of jest's output.
// A test that needs a log line raises the level itself (e.g. through LOG_LEVEL in its harness).
import { setLogLevel } from "../../src/log.js";

setLogLevel("error");
