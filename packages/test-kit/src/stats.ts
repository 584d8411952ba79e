// The one summary the tests and benches take of repeated measurements.

/** The upper median (the middle value, or the higher of the two middle ones); NaN for no values. */
export const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
