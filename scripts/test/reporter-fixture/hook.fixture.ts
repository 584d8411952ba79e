import { beforeAll, it } from 'vitest';

beforeAll(() => {
  throw new Error('setup failed');
});
it('never runs', () => {});
