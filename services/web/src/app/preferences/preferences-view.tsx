import { Form, useActionData, useLoaderData, useNavigation } from 'react-router';
import type { PreferencesActionData, PreferencesData } from './preferences.server.ts';
import { LIMITS } from './preferences.ts';

export function Component() {
  const { preferences, saved } = useLoaderData() as PreferencesData;
  const action = useActionData() as PreferencesActionData | undefined;
  const busy = useNavigation().state === 'submitting';
  const errors = action?.errors ?? {};
  const value = (field: keyof typeof preferences) => action?.values[field] ?? String(preferences[field]);
  return (
    <>
      <h1>Preferences</h1>
      {saved && !action ? (
        <p role="status" className="notice">
          Your preferences were saved.
        </p>
      ) : null}
      {Object.keys(errors).length > 0 ? (
        <p role="alert" className="error">
          Please correct the fields marked below.
        </p>
      ) : null}
      <Form method="post" className="form" noValidate>
        <div className="field">
          <label htmlFor="displayName">Display name</label>
          <input
            id="displayName"
            name="displayName"
            maxLength={LIMITS.displayNameMax + 20}
            defaultValue={value('displayName')}
            aria-invalid={errors.displayName ? true : undefined}
            aria-describedby={errors.displayName ? 'displayName-error' : undefined}
          />
          {errors.displayName ? <p id="displayName-error">{errors.displayName}</p> : null}
        </div>
        <div className="field">
          <label htmlFor="pageSize">Items per catalog page</label>
          <input
            id="pageSize"
            name="pageSize"
            inputMode="numeric"
            defaultValue={value('pageSize')}
            aria-invalid={errors.pageSize ? true : undefined}
            aria-describedby={errors.pageSize ? 'pageSize-error' : undefined}
          />
          {errors.pageSize ? <p id="pageSize-error">{errors.pageSize}</p> : null}
        </div>
        <fieldset className="field">
          <legend>Theme</legend>
          {(['light', 'dark'] as const).map((theme) => (
            <label key={theme}>
              <input type="radio" name="theme" value={theme} defaultChecked={value('theme') === theme} /> {theme}
            </label>
          ))}
          {errors.theme ? <p>{errors.theme}</p> : null}
        </fieldset>
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save preferences'}
        </button>
      </Form>
    </>
  );
}

export const title = () => 'Preferences · Example Store';
export const description = () => 'Choose your display name, theme and catalog page size at the Example Store.';
