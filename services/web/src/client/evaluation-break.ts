// Imported first by entry.tsx. Its top-level await ends the task in which the browser evaluated the chunks the entry
// imports (the router, React), so React DOM and the app's own modules are evaluated in the next task: two tasks a
// phone runs in well under 50 ms each instead of one over it (docs/benchmarks.md, "The main thread on a phone").
await new Promise((resolve) => setTimeout(resolve, 0));
