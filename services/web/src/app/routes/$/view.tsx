// The view for any URL no route matches.
import { NotFoundScreen } from '../../../framework/shared/error-screens.tsx';

export function Component() {
  return <NotFoundScreen />;
}
