// A file whose beforeAll throws: the count reporter must count it as a failure although no test ran.
import { beforeAll, it } from 'vitest';

beforeAll(() => {
  throw new Error('setup failed');
});
it('never runs', () => {});
