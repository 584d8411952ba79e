// The product's name, in the layout, every title and og:site_name.
export const APP_NAME = 'Example Store';
