// Polling for a condition another process or the event loop brings about, with a deadline that names what it was.

/**
 * Polls `check` every `everyMs` until it returns true; a check that throws counts as "not yet" (a server still
 * starting refuses connections). Past `timeoutMs` it throws, naming `what`, with the check's last error as cause.
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
  everyMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
