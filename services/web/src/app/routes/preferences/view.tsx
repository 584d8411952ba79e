// The preferences form: shows the saved values, or what was sent back with its errors.
import { Form, useActionData, useLoaderData, useNavigation } from 'react-router';
import { LIMITS } from '../../preferences/preferences.ts';
import type { PreferencesActionData } from './action.server.ts';
import type { PreferencesData } from './loader.server.ts';

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
        <TextField
          name="displayName"
          label="Display name"
          maxLength={LIMITS.displayNameMax + 20}
          value={value('displayName')}
          error={errors.displayName}
        />
        <TextField
          name="pageSize"
          label="Items per catalog page"
          inputMode="numeric"
          value={value('pageSize')}
          error={errors.pageSize}
        />
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

/** A labelled text input whose error, when there is one, is announced with it (aria-describedby). */
function TextField(props: {
  name: string;
  label: string;
  value: string;
  error: string | undefined;
  maxLength?: number;
  inputMode?: 'numeric';
}) {
  const { name, label, value, error, maxLength, inputMode } = props;
  return (
    <div className="field">
      <label htmlFor={name}>{label}</label>
      <input
        id={name}
        name={name}
        maxLength={maxLength}
        inputMode={inputMode}
        defaultValue={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${name}-error` : undefined}
      />
      {error ? <p id={`${name}-error`}>{error}</p> : null}
    </div>
  );
}
