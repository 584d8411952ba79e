// The shop's start page.
import { Link } from 'react-router';

const START_LINKS = [
  ['/catalog', 'Browse the catalog'],
  ['/preferences', 'Set your preferences'],
] as const;

export function Component() {
  return (
    <>
      <h1>Welcome</h1>
      <p>
        This example shop shows how pages behave: they render on the server, then move in the browser without reloads.
      </p>
      <ul>
        {START_LINKS.map(([to, text]) => (
          <li key={to}>
            <Link to={to}>{text}</Link>
          </li>
        ))}
      </ul>
    </>
  );
}
