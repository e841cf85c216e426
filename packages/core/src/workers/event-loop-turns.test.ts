import { nextTurn } from './event-loop-turns.js';

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // Stands in for scoring sections on the main thread.
  }
}

describe('nextTurn', () => {
  it('lets a due timer run between pieces of work that were ready at the same moment', async () => {
    const order: string[] = [];
    const piece = async (name: string) => {
      await nextTurn();
      order.push(name);
      if (name === 'first') setTimeout(() => order.push('timer'), 0);
      busy(5);
    };
    await Promise.all([piece('first'), piece('second'), piece('third')]);
    expect(order).toEqual(['first', 'timer', 'second', 'third']);
  });

  it('keeps the order in which turns were asked, also for a turn asked from inside a turn', async () => {
    const order: string[] = [];
    const twoPieces = async (name: string) => {
      await nextTurn();
      order.push(`${name}1`);
      await nextTurn();
      order.push(`${name}2`);
    };
    await Promise.all([twoPieces('a'), twoPieces('b')]);
    expect(order).toEqual(['a1', 'b1', 'a2', 'b2']);
  });
});
