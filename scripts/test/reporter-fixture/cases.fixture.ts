// One test of each outcome for the count reporter's fixture run: a pass, a failure, a skip.
import { expect, it } from 'vitest';

it('passes', () => expect(1).toBe(1));
it('fails', () => expect(1).toBe(2));
it.skip('is skipped', () => {});
