// The preferences page's head metadata, and the cookie its loader reads.
export const title = () => 'Preferences · Example Store';
export const description = () => 'Choose your display name, theme and catalog page size at the Example Store.';
export const cookies = ['prefs'];
