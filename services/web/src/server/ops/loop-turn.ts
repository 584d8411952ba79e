// How much CPU the current event-loop turn has spent on requests: synchronous pages render inside their sockets' read
// callbacks, so a crowd waits in kernel buffers unseen by the in-flight count and timers; CPU, not wall time, so a host
// starving the process is not taken for a queue that 503s would shorten (decision 027).

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
