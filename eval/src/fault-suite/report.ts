/**
 * The suite's record of checks: each check is one sentence that either held
 * or did not, grouped by category, printed as it finishes and summed up at
 * the end as `category: tried / held`.
 */
export type Category = 'faults' | 'load' | 'bad input' | 'security';

export const CATEGORIES: readonly Category[] = ['faults', 'load', 'bad input', 'security'];

export interface CheckOutcome {
  category: Category;
  sentence: string;
  held: boolean;
  detail: string;
}

/** Thrown by `expectThat`; its message says what was seen instead. */
export class CheckFailed extends Error {}

export function expectThat(condition: unknown, whatWasSeen: string): asserts condition {
  if (!condition) throw new CheckFailed(whatWasSeen);
}

export class SuiteReport {
  readonly outcomes: CheckOutcome[] = [];

  /** Runs one check; an exception or a failed expectation means it did not hold. */
  async check(category: Category, sentence: string, body: () => Promise<string | void>): Promise<boolean> {
    let held = true;
    let detail = '';
    try {
      detail = (await body()) ?? '';
    } catch (error) {
      held = false;
      detail = error instanceof CheckFailed ? error.message : `${(error as Error).name}: ${(error as Error).message}`;
    }
    this.outcomes.push({ category, sentence, held, detail });
    process.stdout.write(`  ${held ? 'held  ' : 'FAILED'} [${category}] ${sentence}${detail ? ` (${detail})` : ''}\n`);
    return held;
  }

  summaryLines(): string[] {
    return CATEGORIES.map((category) => {
      const tried = this.outcomes.filter((outcome) => outcome.category === category);
      const held = tried.filter((outcome) => outcome.held).length;
      return `${category}: ${tried.length} tried / ${held} held`;
    });
  }

  get allHeld(): boolean {
    return this.outcomes.every((outcome) => outcome.held);
  }
}
