// The not-found page's head metadata.
export const title = () => 'Page not found';
