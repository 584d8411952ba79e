// The layout around every page: header, navigation and the theme from the visitor's preferences.
import { NavLink, Outlet, ScrollRestoration, useLoaderData } from 'react-router';
import { NavigationEffects } from '../../framework/shared/navigation-effects.tsx';
import { APP_NAME } from '../site.ts';
import type { RootData } from './loader.server.ts';

export function Component() {
  const { preferences } = useLoaderData() as RootData;
  return (
    <div className={`app theme-${preferences.theme}`}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <NavLink to="/" className="brand" end>
          {APP_NAME}
        </NavLink>
        <nav aria-label="Main">
          <NavLink to="/catalog">Catalog</NavLink>
          <NavLink to="/preferences">Preferences</NavLink>
        </nav>
        {preferences.displayName ? <span className="greeting">{`Hello, ${preferences.displayName}`}</span> : null}
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
      <footer className="site-footer">Example product · replace src/app with your own routes</footer>
      <NavigationEffects appName={APP_NAME} />
      <ScrollRestoration />
    </div>
  );
}
