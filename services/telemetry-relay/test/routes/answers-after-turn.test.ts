// Fast mode's answers are written together once per turn, after what the turn scheduled before them (its sends).
import { describe, expect, it } from 'vitest';
import { createAnswersAfterTurn } from '../../src/routes/answers-after-turn.ts';

describe('answers after the turn', () => {
  it('writes nothing in the turn that queued it, then every queued answer in order after earlier work', async () => {
    const answerAfterTurn = createAnswersAfterTurn();
    const order: string[] = [];
    setImmediate(() => order.push('sends'));
    answerAfterTurn(() => order.push('answer 1'));
    answerAfterTurn(() => order.push('answer 2'));
    expect(order).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['sends', 'answer 1', 'answer 2']);
  });

  it('starts a new batch for answers queued by a later turn', async () => {
    const answerAfterTurn = createAnswersAfterTurn();
    const order: string[] = [];
    answerAfterTurn(() => order.push('first turn'));
    await new Promise((resolve) => setImmediate(resolve));
    answerAfterTurn(() => order.push('second turn'));
    expect(order).toEqual(['first turn']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['first turn', 'second turn']);
  });
});
