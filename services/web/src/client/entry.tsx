// The browser's entry. It holds no components on purpose: in development an edit that no module accepts (a route
// table, a helper) bubbles up to here, and a module React Fast Refresh does not claim makes Vite reload the page,
// rather than run the app a second time in the same document.
import './evaluation-break.ts';
import { start } from './start.tsx';

void start();
