/** Jest runs the TypeScript sources through SWC as native ESM (see the `test` script). */
export default {
  testEnvironment: "node",
  extensionsToTreatAsEsm: [".ts"],
  transform: {
    "^.+\\.ts$": [
      "@swc/jest",
      {
        jsc: { parser: { syntax: "typescript" }, target: "es2022" },
        module: { type: "es6" },
      },
    ],
  },
  moduleNameMapper: {
    "^(\\.{1,2}/.*)\\.js$": "$1",
    "^node-fetch$": "<rootDir>/__tests__/helpers/node-fetch-shim.cjs",
  },
  testMatch: ["<rootDir>/__tests__/**/*.test.ts"],
  setupFilesAfterEnv: ["<rootDir>/__tests__/helpers/quiet-logs.ts"],
  // The servers under test write their rebuildable files to a temporary cache, not ~/.cache.
  globalSetup: "<rootDir>/__tests__/helpers/global-setup.ts",
  globalTeardown: "<rootDir>/__tests__/helpers/global-teardown.ts",
  // Generous: on the 2-core machine beside other work, hooks that open stores or spawn servers
  // take several times what they take alone. Tests never assert durations (npm run bench does).
  testTimeout: 120_000,
  // A worker asked to stop exits once nothing keeps its event loop alive; on a loaded machine that
  // can take longer than Jest's default 500 ms, after which it is killed with a warning about leaks.
  // No suite leaves a handle behind (a check of every suite's handles after its teardown found
  // none); a real leak still gets the warning, 10 s later.
  workerGracefulExitTimeout: 10_000,
  maxWorkers: 2,
};
