// The demo's own texts, written for revloop (no reference data): requests with human-style
// responses for exact length, and sentences and short paragraphs for the COLLIE-style families.
// Targets are never typed in by hand: src/app/demo/cases.ts derives them from these texts with the
// verifiers' own counters, so every case is satisfiable by construction.

interface ExactSeed {
  slug: string;
  instruction: string;
  response: string;
  anchors: string[];
}

export const EXACT_SEEDS: ExactSeed[] = [
  {
    slug: 'bread',
    instruction: 'Explain how to keep a sourdough starter alive while travelling for a week.',
    response:
      'Feed the starter generously the night before you leave, then move it to the refrigerator in a jar with a loose lid. ' +
      'The cold slows the yeast, so a week without feeding is fine. When you return, discard half, feed it with equal weights of flour and water, ' +
      'and leave it on the counter until it doubles before you bake.',
    anchors: ['refrigerator', 'equal weights', 'doubles'],
  },
  {
    slug: 'bicycle',
    instruction: 'Give a beginner advice on fixing a flat bicycle tyre at the roadside.',
    response:
      'Shift to the smallest cog, open the brake and take the wheel out. Lever one side of the tyre off the rim, pull the tube out and pump it up to hear the leak. ' +
      'Run your fingers inside the tyre to find the thorn that caused it, or the new tube will puncture too. Fit the spare tube, push the tyre back by hand and inflate it slowly.',
    anchors: ['spare tube', 'thorn', 'rim'],
  },
  {
    slug: 'library',
    instruction: 'Write a short note asking neighbours to help restock the street library box.',
    response:
      'Dear neighbours, the little library box by the bus stop is nearly empty again. If you have picture books, paperbacks or old atlases you no longer read, ' +
      'please leave one or two on the shelf this weekend. Wrap them in a bag if it rains. Thank you for keeping the street reading!',
    anchors: ['library box', 'weekend', 'picture books'],
  },
  {
    slug: 'comet',
    instruction: 'Describe what an amateur astronomer might see when a bright comet passes.',
    response:
      'Away from town lights, the comet first looks like a smudge of grey cotton low in the west after sunset. Through binoculars the head turns into a bright, ' +
      'slightly green core, and a pale tail fans out away from the sun. Night after night it shifts against the stars, and a long-exposure photograph shows ' +
      'fine streamers that the eye alone cannot catch.',
    anchors: ['binoculars', 'tail', 'long-exposure'],
  },
  {
    slug: 'garden',
    instruction: 'Suggest how to plan a small vegetable bed on a sunny balcony.',
    response:
      'Start with two deep containers rather than many shallow pots, because roots dry out quickly in wind. Put tomatoes or peppers at the back where they get the most sun, ' +
      'and lettuce or herbs in front. Water in the early morning, add a handful of compost every month, and pick leaves often so the plants keep growing.',
    anchors: ['containers', 'compost', 'early morning'],
  },
  {
    slug: 'meeting',
    instruction: 'Summarise the decisions of a community meeting about a new playground.',
    response:
      'The residents agreed to build the playground on the empty lot behind the school rather than in the park. Volunteers will clear the ground in April, ' +
      'the council will pay for the climbing frame, and a parents group will raise money for benches. A follow-up meeting in June will check progress.',
    anchors: ['playground', 'council', 'June'],
  },
  {
    slug: 'tea',
    instruction: 'Tell a friend how to brew a good pot of loose-leaf black tea.',
    response:
      'Warm the pot with hot water first and pour it away. Use one teaspoon of leaves for each cup, bring fresh water just to the boil, and pour it over the leaves. ' +
      'Let it steep for four minutes, no longer, or it turns bitter. Strain it into cups and add milk only after tasting it plain.',
    anchors: ['teaspoon', 'four minutes', 'bitter'],
  },
  {
    slug: 'lighthouse',
    instruction: 'Write a short story opening set in a lighthouse during a storm.',
    response:
      'The lamp had turned all night without a pause, but at four the keeper heard a knock below the gallery. Rain hammered the glass, the sea climbed the rocks, ' +
      'and nobody should have been on the island at all. She took the lantern from its hook, counted the ninety steps down, and opened the door to a boy holding a wet letter.',
    anchors: ['keeper', 'lantern', 'wet letter'],
  },
  {
    slug: 'recycling',
    instruction: 'Explain to a new flatmate how the household sorts its rubbish.',
    response:
      'Glass bottles go in the green crate under the sink, rinsed. Paper and flattened cardboard go in the blue bag by the door. Food scraps go in the small caddy, ' +
      'which we empty into the brown bin on Tuesday evenings. Everything else goes in the general bin, and batteries go back to the shop.',
    anchors: ['green crate', 'Tuesday', 'batteries'],
  },
  {
    slug: 'hiking',
    instruction: 'List what to check before a day hike in the hills in autumn.',
    response:
      'Check the forecast the evening before and again in the morning, since weather in the hills changes fast. Tell someone your route and when you expect to be back. ' +
      'Pack a warm layer, a waterproof, a head torch for early dusk, enough water and some food, and carry a paper map in case your phone battery fails.',
    anchors: ['forecast', 'head torch', 'paper map'],
  },
];

/** Single sentences of at least eleven words (c05, c07). */
export const SENTENCES: string[] = [
  'The old ferryman rowed his small boat across the river before every dawn.',
  'Our neighbour painted the garden fence bright yellow during the long summer holidays.',
  'A curious fox crept past the sleeping dogs and stole a warm loaf.',
  'Every winter the village children build a tall snowman beside the frozen pond.',
  'The violinist tuned her instrument twice while the audience slowly found their seats.',
  'Heavy clouds gathered over the harbour as fishermen hurried to tie their nets.',
  'My grandfather keeps a jar of buttons that once belonged to a tailor.',
  'The train left the mountain station late because a goat stood on the tracks.',
];

/** Short paragraphs of two to four sentences (c09, c10, c12). */
export const PARAGRAPHS: string[] = [
  'The market opened early on Saturday. Farmers stacked crates of apples beside jars of honey. By noon most stalls had sold out.',
  'Snow fell quietly through the night. In the morning the street looked new and silent.',
  'Maya found an old map in the attic. It showed a path to a hidden spring behind the mill. She packed a torch and set off after lunch.',
  'The robot vacuum bumped into the sofa again. It turned, hummed, and tried another route. Eventually it gave up beneath the bookshelf.',
  'Our choir practises every Thursday in the church hall. Tonight we learned a new carol. The tenors still need more rehearsal.',
  'A storm knocked out the power at dinner. We lit candles and played cards by their glow. Nobody wanted the lights to come back.',
  'The orchard smelled of ripe pears. Wasps circled the fallen fruit in the grass.',
  'Lena repaired the broken clock with patient hands. Its ticking filled the quiet workshop again. Her apprentice watched every careful step.',
  'Waves rolled onto the empty beach. Gulls argued over a crust of bread. Far out, a sailboat leaned into the wind.',
  'The bakery on our corner closes at six. Its last customers buy the cheap bread. Then the baker sweeps the floor and turns off the ovens.',
  'Tom planted sunflowers along the wall. By August they were taller than the gate.',
  'The museum guard knew every painting by heart. At closing time he wished each one good night. Visitors thought he was joking, but he was not.',
];
