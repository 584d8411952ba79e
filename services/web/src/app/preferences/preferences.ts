// Preferences: shape, defaults and validation. Pure, shared by the server (action) and the view (field limits).
export interface Preferences {
  displayName: string;
  pageSize: number;
  theme: 'light' | 'dark';
}

export const DEFAULT_PREFERENCES: Preferences = { displayName: '', pageSize: 20, theme: 'light' };
export const LIMITS = { displayNameMax: 40, pageSizeMin: 5, pageSizeMax: 50 } as const;

export type FieldErrors = Partial<Record<keyof Preferences, string>>;
export type Validation = { ok: true; value: Preferences } | { ok: false; errors: FieldErrors };

/** Validates untrusted input (a form post or a cookie); every problem is named by field. */
export function validatePreferences(input: Record<string, unknown>): Validation {
  const errors: FieldErrors = {};
  const displayName = typeof input.displayName === 'string' ? input.displayName.trim() : '';
  if (displayName.length > LIMITS.displayNameMax) {
    errors.displayName = `Use at most ${LIMITS.displayNameMax} characters.`;
  }
  const pageSize = Number(input.pageSize);
  if (!Number.isInteger(pageSize) || pageSize < LIMITS.pageSizeMin || pageSize > LIMITS.pageSizeMax) {
    errors.pageSize = `Choose a whole number from ${LIMITS.pageSizeMin} to ${LIMITS.pageSizeMax}.`;
  }
  const theme = input.theme;
  if (theme !== 'light' && theme !== 'dark') errors.theme = 'Choose light or dark.';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, value: { displayName, pageSize, theme: theme as Preferences['theme'] } };
}
