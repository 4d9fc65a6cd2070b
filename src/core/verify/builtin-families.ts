// Every built-in family, registered as this module loads. The library's entry points import it for
// its effect, so `getFamily('c10')` works as soon as `revloop/core/verify` is imported; it
// is a static import rather than a top-level `await loadFamilies()`, because a module with top-level
// await cannot be `require()`d (docs/library.md, CommonJS). The CLI's `run` does not import it and
// loads its case file's families on demand instead (registry.ts).
import { COLLIE_FAMILIES } from './collie/families.ts';
import { ifevalFamily } from './ifeval/family.ts';
import { addBuiltinFamilies } from './registry.ts';
import { c05Family, c07Family, c09Family, c10Family, c12Family } from './structured/families.ts';

addBuiltinFamilies([c05Family, c07Family, c09Family, c10Family, c12Family, ...COLLIE_FAMILIES, ifevalFamily]);
