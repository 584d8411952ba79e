// Fast mode's answers, written together once per turn of the event loop after that turn's sends, as durable mode's
// answers go out after each group commit: one wake-up of the client per burst, not one per answer (decision 033).

/** Queues `write` to run with every other answer of this turn, in order, once the turn's I/O callbacks are done. */
export type AnswerAfterTurn = (write: () => void) => void;

export function createAnswersAfterTurn(): AnswerAfterTurn {
  let queued: Array<() => void> = [];
  const flush = () => {
    const writes = queued;
    queued = [];
    for (const write of writes) write();
  };
  return (write) => {
    if (queued.length === 0) setImmediate(flush);
    queued.push(write);
  };
}
