import { useEffect, useState } from 'preact/hooks';

/** A page of the console, from the location's hash (`#/runs/run_1`): ids only, never a secret. */
export type Route =
  | { readonly page: 'inbox' }
  | { readonly page: 'runs' }
  | { readonly page: 'run'; readonly id: string }
  | { readonly page: 'sessions' }
  | { readonly page: 'session'; readonly id: string }
  | { readonly page: 'workers' }
  | { readonly page: 'tokens' };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const [first, second] = parts;
  if (first === 'runs' && second) return { page: 'run', id: second };
  if (first === 'runs') return { page: 'runs' };
  if (first === 'sessions' && second) return { page: 'session', id: second };
  if (first === 'sessions') return { page: 'sessions' };
  if (first === 'workers') return { page: 'workers' };
  if (first === 'tokens') return { page: 'tokens' };
  return { page: 'inbox' };
}

export function href(route: Route): string {
  switch (route.page) {
    case 'inbox':
      return '#/';
    case 'run':
      return `#/runs/${encodeURIComponent(route.id)}`;
    case 'session':
      return `#/sessions/${encodeURIComponent(route.id)}`;
    default:
      return `#/${route.page}`;
  }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}
