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
  testTimeout: 30000,
  maxWorkers: 2,
};
