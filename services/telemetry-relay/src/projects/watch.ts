// Noticing a changed PROJECTS_FILE: a ConfigMap update writes a new directory and swaps the `..data` symlink, so the
// file's own inode never changes; the directory is watched, and a burst of events becomes one reload.
import { watch } from 'node:fs';
import { dirname } from 'node:path';

/** Calls `changed` once `debounceMs` after the last event in the file's directory; `close` stops watching. */
export function watchProjectsFile(path: string, changed: () => void, debounceMs: number): { close(): void } {
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(dirname(path), { persistent: false }, () => {
    clearTimeout(timer);
    timer = setTimeout(changed, debounceMs);
    timer.unref();
  });
  // A directory that disappears (unmounted) ends the watch; SIGHUP still reloads.
  watcher.on('error', () => watcher.close());
  return {
    close() {
      clearTimeout(timer);
      watcher.close();
    },
  };
}
