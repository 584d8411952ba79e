// Reading configuration from the environment: each reader's bounds, and every wrong value named at once.
import { describe, expect, it } from 'vitest';
import { ConfigError, readEnv, readServerConfig } from '../src/index.ts';

describe('readEnv', () => {
  it('uses fallbacks for unset and empty variables', () => {
    const env = readEnv({ EMPTY: '  ' });
    expect(env.string('EMPTY', 'd')).toBe('d');
    expect(env.integer('MISSING', 7, { min: 0, max: 10 })).toBe(7);
    expect(env.boolean('MISSING', true)).toBe(true);
    expect(env.list('MISSING', ['a'])).toEqual(['a']);
    expect(env.optionalUrl('MISSING')).toBeUndefined();
    env.done();
  });

  it('parses well-formed values', () => {
    const env = readEnv({ N: '42', B: 'no', L: ' a, ,b ', U: 'https://x.test/p', E: 'fast' });
    expect(env.integer('N', 0, { min: 0, max: 100 })).toBe(42);
    expect(env.boolean('B', true)).toBe(false);
    expect(env.list('L')).toEqual(['a', 'b']);
    expect(env.optionalUrl('U')?.href).toBe('https://x.test/p');
    expect(env.oneOf('E', ['fast', 'durable'], 'durable')).toBe('fast');
    env.done();
  });

  it('reports every bad variable by name in one error', () => {
    const env = readEnv({ PORT: '80x', B: 'maybe', U: 'ftp://x', E: 'slow', N: '1.5' });
    env.integer('PORT', 0, { min: 0, max: 65535 });
    env.boolean('B', false);
    env.optionalUrl('U');
    env.oneOf('E', ['fast', 'durable'], 'fast');
    env.integer('N', 0, { min: 0, max: 9 });
    env.check('X', 'is wrong in a custom way');
    let error: unknown;
    try {
      env.done();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'PORT must be an integer from 0 to 65535 (got "80x")',
      'B must be true or false (got "maybe")',
      'U must be an absolute http:// or https:// URL (got "ftp://x")',
      'E must be one of fast, durable (got "slow")',
      'N must be an integer from 0 to 9 (got "1.5")',
      'X is wrong in a custom way',
    ]);
  });

  it('rejects out-of-range integers', () => {
    const env = readEnv({ PORT: '65536' });
    expect(readServerConfig(env, 3000).port).toBe(3000);
    expect(() => env.done()).toThrow(/PORT must be an integer from 0 to 65535 \(got "65536"\)/);
  });

  it('reads the shared server settings with defaults', () => {
    const env = readEnv({ PORT: '8080', HOST: '127.0.0.1' });
    expect(readServerConfig(env, 3000)).toEqual({
      port: 8080,
      host: '127.0.0.1',
      logLevel: 'info',
      shutdownGraceMs: 25_000,
      shutdownDrainDelayMs: 0,
    });
    env.done();
  });
});
