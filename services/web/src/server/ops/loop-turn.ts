// How much work the current event-loop turn has done on requests. Node reads every socket that epoll reported ready
// in one poll phase, and a synchronous page is rendered and ended inside its socket's read callback: a crowd waits
// in kernel buffers, unseen by the in-flight count, and timers (under-pressure's sampler among them) run only once
// the turn is over. The main thread's CPU time since the turn's first request is how much of this process's own work
// the request read now has waited behind; CPU rather than wall time, because a turn that is slow while the host
// starves the process (few requests, little CPU) is not a queue 503s would shorten
// (docs/decisions/027-shedding-by-turn-wait.md).

const cpuMs = () => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1_000;
};

/** A clock reading the main thread's CPU milliseconds since the first call of the current loop turn (0 for that one). */
export function turnClock(now: () => number = cpuMs): () => number {
  let startedAt = -1;
  // setImmediate runs in the check phase, right after the poll phase that read the requests.
  const endTurn = () => {
    startedAt = -1;
  };
  return () => {
    const reading = now();
    if (startedAt >= 0) return reading - startedAt;
    startedAt = reading;
    setImmediate(endTurn);
    return 0;
  };
}
