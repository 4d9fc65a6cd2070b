// Probe items in the store: an item's content hash. Reading, validating and writing item files
// lives with the item schema in src/envs/items/item-file.ts.
import { sha256Hex } from '../../core/util/hash.ts';
import { itemJsonLine } from '../../envs/items/item-file.ts';
import type { ProbeItem } from './probe-types.ts';

export { parseItems, readItemsFile, itemJsonLine, itemsJsonl } from '../../envs/items/item-file.ts';

/** SHA-256 of an item's canonical line: identifies its content in the store. */
export function itemSha256(item: ProbeItem): string {
  return sha256Hex(itemJsonLine(item));
}
