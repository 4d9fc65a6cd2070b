// Scripted turn generators for rollout tests: the model's turns are given, everything else (the
// harness, the environment, the goal predicates, the records) is the real code.
import type { ChatMessage, Model } from '../../src/models/types.ts';
import type { TurnGenerator, TurnRequest, TurnResult } from '../../src/studies/agent/generator.ts';

export function fakeModel(capabilities: Partial<Model['capabilities']> = {}): Model {
  return {
    spec: 'fake:scripted',
    label: 'scripted',
    capabilities: { score: false, ban: true, simulated: false, ...capabilities },
    async generate() {
      throw new Error('not used');
    },
  };
}

export class ScriptedGenerator implements TurnGenerator {
  readonly method = 'scripted';
  readonly seen: Array<{ messages: ChatMessage[]; request: TurnRequest }> = [];
  private i = 0;
  constructor(
    private readonly script: (turn: number, messages: ChatMessage[]) => string,
    readonly model: Model = fakeModel(),
  ) {}
  async turn(messages: ChatMessage[], request: TurnRequest): Promise<TurnResult> {
    this.seen.push({ messages, request });
    const text = this.script(this.i++, messages);
    return { text, genTokens: 5, promptTokens: 100 + messages.length, nBannedMasked: request.banned.length, finishReason: 'stop' };
  }
  async info(): Promise<Record<string, unknown>> {
    return { backend: 'scripted' };
  }
  reset(): void {
    this.i = 0;
  }
}
