// How long the current event-loop turn has been reading requests. Node reads every socket that epoll reported ready
// in one poll phase, and a synchronous page is rendered and ended inside its socket's read callback: a crowd waits
// in kernel buffers, unseen by the in-flight count, and timers (under-pressure's sampler among them) run only once
// the turn is over. The time since the turn's first request is a lower bound on how long the one read now has waited
// inside this process (docs/decisions/027-shedding-by-turn-wait.md).

/** Returns a clock whose reading is the milliseconds since the first call of the current loop turn (0 for that one). */
export function turnClock(): () => number {
  let startedAt = -1;
  // setImmediate runs in the check phase, right after the poll phase that read the requests.
  const endTurn = () => {
    startedAt = -1;
  };
  return () => {
    const now = performance.now();
    if (startedAt >= 0) return now - startedAt;
    startedAt = now;
    setImmediate(endTurn);
    return 0;
  };
}
