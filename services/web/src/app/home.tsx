import { Link } from 'react-router';

export function Component() {
  return (
    <>
      <h1>Welcome</h1>
      <p>
        This example shop shows how pages behave: they render on the server, then move in the browser without reloads.
      </p>
      <ul>
        <li>
          <Link to="/catalog">Browse the catalog</Link>
        </li>
        <li>
          <Link to="/preferences">Set your preferences</Link>
        </li>
      </ul>
    </>
  );
}

export const title = () => 'Home · Example Store';
export const description = () => 'Browse the Example Store catalog and set your display preferences.';
