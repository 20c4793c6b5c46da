// Jest's module runtime cannot require() an ES module (plain Node 20.19 can), and citation-js
// requires node-fetch 3 (ESM) only to fetch remote inputs, which pubmed-mcp never does. Under
// jest, node-fetch resolves to the platform fetch instead.
module.exports = globalThis.fetch;
module.exports.default = globalThis.fetch;
