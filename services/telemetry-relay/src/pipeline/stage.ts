// The shape every stage has: an input in, a typed outcome out. The order they run in is index.ts's list.
import { type RejectCode, RelayError } from '../core/errors.ts';

/** Why an envelope was answered 200 with nothing sent on (its drops go with the next client reports). */
export type DropName = 'nothing_left';

/** What a stage decided: go on with `next`, refuse the envelope (a 4xx/5xx), or drop it (a 200, nothing sent). */
export type Outcome<T> =
  | { readonly kind: 'continue'; readonly next: T }
  | {
      readonly kind: 'refuse';
      readonly code: RejectCode;
      readonly detail: string;
      readonly headers: Record<string, string>;
    }
  | { readonly kind: 'drop'; readonly reason: DropName };

export type Stage<I, O = I> = (input: I) => Outcome<O>;

export const proceed = <T>(next: T): Outcome<T> => ({ kind: 'continue', next });

export const refusal = (code: RejectCode, detail: string, headers: Record<string, string> = {}): Outcome<never> => ({
  kind: 'refuse',
  code,
  detail,
  headers,
});

/** A stage over a function that throws its refusal (the parser, the authorizer): the RelayError as an outcome. */
export function guarded<I, O>(run: (input: I) => O): Stage<I, O> {
  return (input) => {
    try {
      return proceed(run(input));
    } catch (error) {
      if (error instanceof RelayError) return refusal(error.code, error.message, { ...error.headers });
      throw error;
    }
  };
}

/** The refusal as the RelayError the routes answer with. */
export const refusalError = (outcome: Extract<Outcome<unknown>, { kind: 'refuse' }>): RelayError =>
  new RelayError(outcome.code, outcome.detail, outcome.headers);

/** The next input of a stage that cannot drop (the header line's): a refusal is thrown as a RelayError. */
export function continued<T>(outcome: Outcome<T>): T {
  if (outcome.kind === 'continue') return outcome.next;
  if (outcome.kind === 'refuse') throw refusalError(outcome);
  throw new Error(`a stage dropped where no drop is possible (${outcome.reason})`);
}
