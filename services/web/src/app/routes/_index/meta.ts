// The start page's head metadata.
export const title = () => 'Home · Example Store';
export const description = () => 'Browse the Example Store catalog and set your display preferences.';
