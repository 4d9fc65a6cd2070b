// The simulated controllers' own words. Content words only (no function words, so a forbidden
// word such as "is" or "the" never appears by accident), plain lower-case ASCII letters (one word
// each under every counter and tokenizer), and none of them an abbreviation in NLTK's English Punkt
// parameters (so a sentence ending in one is still split where we mean it to be).
import type { HashRng } from './rng.ts';

const ADJECTIVES = [
  'amber',
  'brisk',
  'calm',
  'damp',
  'eager',
  'faint',
  'gentle',
  'hollow',
  'idle',
  'jagged',
  'keen',
  'lively',
  'mellow',
  'narrow',
  'olive',
  'patient',
  'quiet',
  'rapid',
  'silver',
  'tidy',
  'upland',
  'vivid',
  'woven',
  'young',
  'zesty',
  'bright',
  'cobalt',
  'dusty',
  'early',
  'frosty',
  'golden',
  'humble',
  'ivory',
  'lucid',
  'misty',
  'nimble',
  'orderly',
  'polished',
  'rustic',
  'sturdy',
] as const;

const NOUNS = [
  'lanterns',
  'rivers',
  'meadows',
  'harbors',
  'orchards',
  'ferries',
  'gardens',
  'bridges',
  'kettles',
  'ladders',
  'marbles',
  'pebbles',
  'quilts',
  'ribbons',
  'saddles',
  'tunnels',
  'valleys',
  'wagons',
  'willows',
  'beacons',
  'canyons',
  'dunes',
  'engines',
  'fountains',
  'glaciers',
  'hammocks',
  'islands',
  'journals',
  'kites',
  'lagoons',
  'mirrors',
  'notebooks',
  'pastures',
  'ravines',
  'sparrows',
  'terraces',
  'umbrellas',
  'vineyards',
  'windmills',
  'zephyrs',
] as const;

const VERBS = [
  'drift',
  'gather',
  'shimmer',
  'wander',
  'settle',
  'glisten',
  'hover',
  'linger',
  'murmur',
  'ripple',
  'sway',
  'twinkle',
  'unfold',
  'vanish',
  'whirl',
  'beckon',
  'circle',
  'dwell',
  'echo',
  'flourish',
  'glide',
  'hum',
  'kindle',
  'loom',
  'mingle',
  'nestle',
  'paddle',
  'roam',
  'sparkle',
  'tumble',
] as const;

const CATEGORIES: ReadonlyArray<readonly string[]> = [ADJECTIVES, NOUNS, VERBS];

/**
 * An endless stream of filler words: adjective, noun, verb, adjective, noun, verb, … drawn from the
 * stream's rng, skipping any word in `exclude` (compared lower-case).
 */
export class FillerStream {
  private readonly words: string[] = [];

  constructor(
    private readonly rng: HashRng,
    private readonly exclude: ReadonlySet<string>,
  ) {}

  /** The first n words of the stream (the stream is extended on demand, never reshuffled). */
  take(n: number): string[] {
    while (this.words.length < n) {
      const list = CATEGORIES[this.words.length % CATEGORIES.length];
      let w = list[this.rng.int(list.length)];
      for (let k = 0; this.exclude.has(w) && k < list.length; k++) w = list[(list.indexOf(w) + 1) % list.length];
      this.words.push(w);
    }
    return this.words.slice(0, n);
  }
}

/** Upper-cases the first letter (sentence start). */
export function capitalize(w: string): string {
  return w ? w[0].toUpperCase() + w.slice(1) : w;
}
