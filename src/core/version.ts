// revloop's version, recorded in every session event (kept equal to package.json's "version";
// test/package checks it).
export const REVLOOP_VERSION = '0.1.0';
