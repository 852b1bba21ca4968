// Resets a dialog's own state when what it shows changes, during the render that shows it: with an
// effect, the browser paints one frame of the previous (or empty) values first, and a fast user or
// a test can read them (the e2e test once saw an empty name in the entity editor under load).
import { useState } from 'react';

/** Calls `onChange` (which may set this component's state) in the render where `value` changes. */
export function useOnChange<T>(value: T, onChange: (value: T) => void): void {
  const [seen, setSeen] = useState(value);
  if (!Object.is(seen, value)) {
    setSeen(value);
    onChange(value);
  }
}
