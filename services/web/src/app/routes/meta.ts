// The root layout's head metadata: the product's name, and the cookie its loader reads.
import { APP_NAME } from '../site.ts';

export const title = () => APP_NAME;
export const description = () =>
  'An example shop: a catalog of lamps, chairs and other things, rendered on the server.';
// The layout shows the theme and greeting chosen on the preferences page.
export const cookies = ['prefs'];
