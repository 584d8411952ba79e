// The full page load the client falls back to: started once per target however many parts of a navigation fail.

import { watchFullLoads } from '@app/test-kit/full-loads';
import { afterEach, expect, it, vi } from 'vitest';
import { hardNavigate } from '../../src/client/navigation/hard-navigate.ts';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

it('loads a target once however often it is asked, another target at once, the same again after Back', () => {
  const assigned = watchFullLoads();
  void hardNavigate('/catalog', 'code failed');
  void hardNavigate('/catalog', 'data failed');
  expect(assigned).toEqual(['/catalog']);
  void hardNavigate('/preferences', 'code failed');
  expect(assigned).toEqual(['/catalog', '/preferences']);
  void hardNavigate('/preferences', 'data failed');
  expect(assigned).toEqual(['/catalog', '/preferences']);
  // Restored from the back/forward cache, the page may have to leave for the same target again.
  window.dispatchEvent(new Event('pageshow'));
  void hardNavigate('/preferences', 'code failed');
  expect(assigned).toEqual(['/catalog', '/preferences', '/preferences']);
});
