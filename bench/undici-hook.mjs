// A module resolve hook for bench/run-http.ts --client undici|undici-dispatch: the HTTP transport's
// import of its exchange (models/http/node-fetch, in src/ or dist/) gets bench/undici-node-fetch.ts
// instead, which swaps undici in for revloop's HTTP/1.1 client and passes everything else through.
// Only the transport's import is redirected, so the shim itself still reaches the real module.
let shim;

export function initialize(data) {
  shim = data.shim;
}

export async function resolve(specifier, context, next) {
  if (/\/node-fetch\.(ts|js)$/.test(specifier) && /\/models\/http\/transport\.(ts|js)$/.test(context.parentURL ?? ''))
    return next(shim, context);
  return next(specifier, context);
}
